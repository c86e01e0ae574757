import Foundation
import OfflineLab
import PushConsole
import PushDevice
import PushGateway
import PushHTTP
import PushMetrics

/// `--console` for `pushlab serve`: the flags, and the parts the console gets once the
/// gateway's ports are bound (the virtual iPhone, the send form's clients, the collector).
enum ConsoleSetup {
    static let enabled = Option.flag("--console", help: "Serve the web console at /console on the Google host (docs/console.md).")
    static let remote = Option.flag("--console-remote", help: "Let the console answer peers that are not loopback (it refuses them by default); every request then needs the console's access token.")
    static let tokenFile = Option.string(
        "--console-token-file", name: "FILE",
        help: "The console's access token (first line, 16+ characters: letters, digits, - . _ ~ + /, = at the end); also PUSHLAB_CONSOLE_TOKEN. With --console-remote and neither, pushlab makes one and prints the console link with it once.")
    static let app = Option.value(["--console-app"], name: "FILE", help: "App profile of the console's virtual iPhone.", kind: .string,
                                  computed: "payloads/apps/demo.json") { ProjectFiles.defaultFile("payloads/apps/demo.json") }
    static let androidApp = Option.value(["--console-android-app"], name: "FILE", help: "Android app profile of the console's virtual Android phones (devices registered as android in --devices).", kind: .string,
                                         computed: "payloads/apps/android-demo.json") { ProjectFiles.defaultFile("payloads/apps/android-demo.json") }
    static let chart = Option.string("--console-chart", name: "SVG", help: "A `simulate --chart` file to show on the console's metrics tab.")
    static let capacity = Option.int("--console-capacity", help: "Pushes the console's log keeps (the newest).", in: 1...10_000_000, default: 100_000)
    static let phoneRate = Option.int("--console-phone-rate", help: "Most pushes a second the virtual iPhone runs its extension for; the device view marks the rest 'not simulated' (the log shows every push).",
                                      in: 1...1_000_000, default: ConsoleConfiguration().phoneRunsPerSecond)
    static let profile = Option.string("--console-profile", name: "NAME", help: "Let the send form also send with this profile's credentials (pushlab profile): APNs sandbox or production (or the profile's --url) and FCM. Keys stay on the server.")
    static let config = Option.string("--config", name: "FILE", help: "pushlab's config file with the profiles (or PUSHLAB_CONFIG).", described: "~/.config/pushlab/config.json")

    static let options: [any OptionDeclaration] = [enabled, remote, tokenFile, app, androidApp, chart, capacity, phoneRate, profile, config]

    /// `pushlab relay --console`: the relay's pushes and the built-in emulator's answers in the log.
    static let relayEnabled = Option.flag("--console", help: "Serve the web console at /console on the relay's port: its pushes and results live, a send form through the native API, devices and metrics (docs/console.md).")
    static let relayRemote = Option.flag("--console-remote", help: "Let the console answer peers that are not loopback (it refuses them by default); every request then needs the console's access token (not an API key).")
    static let relayOptions: [any OptionDeclaration] = [relayEnabled, relayRemote, tokenFile, capacity]

    /// The console's access token: from --console-token-file, else PUSHLAB_CONSOLE_TOKEN (with
    /// --console-remote), else a new one when --console-remote; nil on loopback without a file.
    static func access(_ args: ParsedArguments) throws -> ConsoleAccess? {
        if let file = try args[tokenFile] {
            let text = String(decoding: try readInput(file, what: "console token file"), as: UTF8.self)
            do { return try ConsoleAccess(token: String(text.split(separator: "\n").first ?? "")) } catch {
                throw UsageError("--console-token-file \(file): \(error)", fix: "write a token on its first line, e.g. openssl rand -hex 24 > \(file)")
            }
        }
        guard args[remote] else { return nil }
        if let value = tokenFromEnvironment {
            do { return try ConsoleAccess(token: value) } catch {
                throw UsageError("PUSHLAB_CONSOLE_TOKEN: \(error)", fix: "e.g. export PUSHLAB_CONSOLE_TOKEN=$(openssl rand -hex 24)")
            }
        }
        return ConsoleAccess.generate()
    }

    private static var tokenFromEnvironment: String? {
        ProcessInfo.processInfo.environment["PUSHLAB_CONSOLE_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The `console: URL` line. A token pushlab made is printed here once, in the link (the only
    /// way to learn it); a token from a file or the environment only shortened.
    static func announcement(url: String, _ console: Console, _ args: ParsedArguments) throws -> String {
        guard let access = console.configuration.access else { return "console: \(url)" }
        guard let source = try args[tokenFile] ?? (tokenFromEnvironment == nil ? nil : "PUSHLAB_CONSOLE_TOKEN") else {
            return "console: \(url)?token=\(access.token)"
        }
        return "console: \(url) (access token \(access.shortened) from \(source))"
    }

    /// The relay's console, or nil without `--console`.
    static func relayConsole(_ args: ParsedArguments) throws -> Console? {
        guard args[relayEnabled] else {
            for option in [relayRemote, capacity, tokenFile] as [any OptionDeclaration] where args.isGiven(option) {
                throw UsageError("\(option.spec.primary) needs --console", fix: "add --console")
            }
            return nil
        }
        var configuration = ConsoleConfiguration()
        configuration.allowRemote = args[relayRemote]
        configuration.access = try access(args)
        return Console(configuration: configuration, log: ConsoleLog(capacity: try args[capacity]))
    }

    /// The console `args` ask for, or nil without `--console`.
    static func console(_ args: ParsedArguments, next: (any PushDeliverySink)?) throws -> Console? {
        guard args[enabled] else {
            let needsConsole: [any OptionDeclaration] = [remote, app, androidApp, chart, capacity, profile, tokenFile, phoneRate]
            for option in needsConsole where args.isGiven(option) {
                throw UsageError("\(option.spec.primary) needs --console", fix: "add --console")
            }
            return nil
        }
        var configuration = ConsoleConfiguration()
        configuration.allowRemote = args[remote]
        configuration.access = try access(args)
        if let chart = try args[Self.chart] { configuration.simulateChart = String(decoding: try readInput(chart, what: "simulate chart"), as: UTF8.self) }
        configuration.phoneRunsPerSecond = try args[phoneRate]
        return Console(configuration: configuration, log: ConsoleLog(capacity: try args[capacity]), next: next)
    }

    /// Attaches the virtual iPhone (`--console-app`), the send form's clients (and the
    /// `--console-profile` sender) and the collector once the gateway is bound. Returns the HTTP
    /// clients to shut down at the end.
    static func attach(_ console: Console, _ args: ParsedArguments, gateway: Gateway, collector: MetricsCollector,
                       certsDirectory: String, cdpKey: String) throws -> [HTTPClient] {
        var clients: [HTTPClient] = []
        if let name = try args[profile] {
            let (sender, own) = try ConsoleProfileSender.make(profile: name, config: try args[config])
            console.attach(sender: sender)
            clients += own
        }
        let profilePath = try args[app]
        let profile: AppProfile
        do { profile = try AppProfile.load(path: profilePath) } catch { throw UsageError("--console-app \(error.reason)", fix: error.fix) }
        let androidPath = try args[androidApp]
        let androidProfile: AndroidAppProfile
        do { androidProfile = try AndroidAppProfile.load(path: androidPath) } catch {
            throw UsageError("--console-android-app \(error.reason)", fix: error.fix)
        }
        let work = workDirectory
        do {
            let client = try console.attachLab(gateway: gateway, collector: collector, certsDirectory: certsDirectory, profile: profile,
                                               cdpKey: cdpKey, workDirectory: work)
            console.attachAndroid(gateway: gateway, profile: androidProfile, cdpKey: cdpKey, transport: client,
                                  workDirectory: work.appendingPathComponent("android"))
            return clients + [client]
        } catch { throw UsageError("the console's HTTP client: \(error)") }
    }

    /// Where `serve --console`'s virtual phones keep their App Group and images; `serve` removes
    /// it when it stops.
    static let workDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("pushlab-console-\(getpid())")

    /// `pushlab demo --console`: the console shows the lab's own devices (their extension runs),
    /// sends with the lab's clients and reports the lab's collector with the gateway's records.
    static func attach(_ console: Console, lab: Lab, device: String, profile: AppProfile) {
        // The demo taps its rich push, which deletes the extension's image file: keep copies.
        let notebook = DeviceNotebook(thumbnailDirectory: lab.configuration.workDirectory.appendingPathComponent("console-thumbnails"))
        notebook.register(DeviceNotebook.Device(name: device, platform: "ios", app: profile.bundleID, sdkMode: profile.sdkMode.rawValue))
        lab.fleet.setObserver { run in
            let profile = lab.fleet.member(named: run.deviceName)?.profile ?? profile
            notebook.keep(push: run.push, device: run.deviceName, profile: profile, report: run.report)
        }
        lab.androidFleet.setObserver { run in
            guard let profile = lab.androidFleet.profile(named: run.deviceName) else { return }
            notebook.register(DeviceNotebook.Device(name: run.deviceName, platform: "android", app: profile.package,
                                                    sdkMode: profile.sdkMode.rawValue))
            // The SDK does not keep the picture it drew: fetch it again for the console's thumbnail.
            var image: [UInt8]?
            if let shown = run.report.notification?.image, shown.shown {
                let answer = try? await lab.deviceTransport.send(HTTPRequest(method: "GET", url: shown.url))
                if answer?.status == 200 { image = answer?.body }
            }
            notebook.keep(push: run.push, device: run.deviceName, profile: profile, report: run.report, image: image)
        }
        lab.retainzaFleet.setObserver { arrival, phone in
            notebook.register(DeviceNotebook.Device(name: arrival.device, platform: "ios", app: phone.profile.bundleID, sdkMode: "retainza"))
            let run = RetainzaRun(userInfo: arrival.userInfo, handler: arrival.outcome.handler,
                                  ack: arrival.outcome.ack.map { "\($0)" }, timeline: await phone.timeline)
            notebook.keep(retainza: run, pushID: arrival.pushID, device: arrival.device, receivedAt: arrival.receivedAt, app: phone.profile.bundleID)
        }
        console.attach(devices: notebook)
        console.attach(sender: ConsoleSender(apns: try? lab.apnsClient(), fcm: try? lab.fcmClient()))
        console.attach { try lab.report() }
    }
}
