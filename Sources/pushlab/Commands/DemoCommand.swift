import Foundation
import OfflineLab
import PushConsole
import PushDevice

/// `pushlab demo`: the whole loop offline in one command (what `make demo` runs).
enum DemoCommand: Command {
    static let path = ["demo"]
    static let summary = "Run the whole loop offline: APNs + FCM sends, gateway, extension, tap, collector, recovery."
    static let discussion = """
    Starts the gateway emulator, the metrics collector and an image server on free loopback ports,
    registers a virtual iPhone (payloads/apps/demo.json), then: sends a rich push with the APNs
    client and the dev .p8 key over HTTP/2 + TLS; the Notification Service Extension downloads the
    image and reports `delivered`; a tap resolves the deep link and reports `opened`; the same
    through FCM (OAuth token from the dev service account); and one push whose extension is
    killed before its metric completes, recovered at the next app launch; a Live Activity
    broadcast; and one data message through FCM to a virtual Android phone
    (payloads/apps/android-demo.json) whose Customer.io SDK draws it, reports `delivered` and,
    on a tap, `opened`. Prints each step and the collector's report. Exit 0 only if every step
    did what it should.
    With --console the lab stays up after the run and serves the web console (docs/console.md) with
    everything the demo sent: the push log, the virtual iPhone's notifications and timelines, the
    collector's report; it prints the console's URL and runs until Ctrl-C or SIGTERM (the exit
    status is still the run's).
    """
    static let app = Option.value(["--app"], name: "FILE", help: "App profile of the virtual iPhone.", kind: .string,
                                  computed: "payloads/apps/demo.json") { ProjectFiles.defaultFile("payloads/apps/demo.json") }
    static let androidApp = Option.value(["--android-app"], name: "FILE", help: "App profile of the virtual Android phone.", kind: .string,
                                         computed: "payloads/apps/android-demo.json") { ProjectFiles.defaultFile("payloads/apps/android-demo.json") }
    static let workDir = Option.string("--work-dir", name: "DIR", help: "Where the run keeps its databases and App Group container.", described: "a new temporary directory")
    static let keep = Option.flag("--keep", help: "Keep the work directory (its SQLite files can be read with `pushlab report`).")
    static let json = Option.flag("--json", help: "Print the steps and the report as JSON.")
    static let console = Option.flag("--console", help: "Keep the lab up after the run, serving the web console at /console with what the demo sent, until Ctrl-C.")

    static let options: [any OptionDeclaration] = [app, androidApp, workDir, keep, json, console]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let root = try ProjectFiles.require("demo files")
        let profilePath = try args[app]
        let profile: AppProfile
        do { profile = try AppProfile.load(path: profilePath) } catch { throw UsageError("--app \(error.reason)", fix: error.fix) }
        let androidProfile: AndroidAppProfile
        let androidPath = try args[androidApp]
        do { androidProfile = try AndroidAppProfile.load(path: androidPath) } catch {
            throw UsageError("--android-app \(error.reason)", fix: error.fix)
        }
        let work = try args[workDir].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("pushlab-demo-\(UUID().uuidString.prefix(8))")
        let keep = args[Self.keep] || args.isGiven(workDir)
        defer { if !keep { try? FileManager.default.removeItem(at: work) } }
        if !keep { StandardStreams.removeOnClosedPipe(work) }

        var configuration = LabConfiguration(certsDirectory: root + "/certs", assetsDirectory: root + "/payloads/assets", workDirectory: work)
        configuration.collectorFaults = DemoScenario.collectorFaults
        let console = args[Self.console] ? Console() : nil
        if let console {
            configuration.recordObserver = console.gatewayFeed
            configuration.relayObserver = RelayLogFeed(log: console.log)
            configuration.googleRoutes = { console.register(on: &$0) }
        }
        let lab = try Lab(configuration: configuration)
        try lab.start()
        if let console { ConsoleSetup.attach(console, lab: lab, device: DemoScenario.device, profile: profile) }
        let json = args[Self.json]
        var scenario = DemoScenario(profile: profile) { step in
            guard !json else { return }
            emit(String(format: "[%5d ms] %@ %@", step.elapsedMs, step.passed ? "✔" : "✘", step.title))
            for d in step.details { emit("            \(d)") }
        }
        scenario.androidProfile = androidProfile
        let result = await scenario.run(lab: lab)
        if console == nil { await lab.stop() }

        if json {
            print(try renderJSON(result))
        } else {
            if let report = result.report {
                emit("")
                emit(report.text(deliveryLimit: 10))
            }
            emit(result.passed ? "demo passed: every step did what it should." : "demo FAILED: see the ✘ steps above.")
            if keep { emit("work directory kept: \(work.path)") }
        }
        if let console {
            let signals = TerminationSignals()
            // With --json, stdout holds the JSON document only.
            for line in ["console: \(Console.url(of: lab.gateway) ?? "?")", "the lab stays up for the console; Ctrl-C (or SIGTERM) ends it"] {
                if json { printError(line) } else { emit(line) }
            }
            let signal = await signals.wait()
            printError("pushlab demo: signal \(signal), stopping the lab")
            console.stop()
            await lab.stop()
        }
        return result.passed ? ExitStatus.success : ExitStatus.failure
    }
}
