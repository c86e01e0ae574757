import Foundation
import OfflineLab
import PushConsole
import PushCore
import PushDevice
import PushGateway
import PushHTTP
import OfflineLab
import PushMetrics
import PushStore

/// `pushlab serve`: the push gateway emulator — APNs on one host; OAuth, FCM, the metrics
/// collector and the admin routes on another — until SIGINT or SIGTERM.
enum ServeCommand: Command {
    static let path = ["serve"]
    static let summary = "Run the push gateway emulator (APNs, FCM, OAuth, collector) on local ports."
    static let discussion = """
        APNs: POST /3/device/<token> over TLS (h2) on --apns-port, answering exactly like APNs (every
        reason of Apple's table, provider tokens checked per connection, one stream until the first
        authenticated request, then 500). Google host on --port (TLS, h2 + HTTP/1.1) and --h2c-port
        (cleartext h2c or HTTP/1.1): POST /token (OAuth jwt-bearer), POST
        /v1/projects/<project>/messages:send (FCM HTTP v1), the Customer.io collector routes
        /v1/track, /v1/b, /push/events, GET/POST /admin/devices, GET /admin/pushes?limit=N (1-10000,
        default 100), GET /health.
        Live Activities (docs/live-activities.md): the channel-management API (/1/apps/<bundle>/channels,
        /all-channels) and broadcasts (/4/broadcasts/apps/<bundle>) on the APNs port; virtual iPhones'
        activities under /admin/activities (see pushlab activity); --live-app gives their app profile.
        --retainza-app JSON adds a virtual iPhone whose app embeds the Retainza SDK: serve prints its FCM
        token, its SDK reports to /retainza/v1 here, and a push sent to that token runs its handlers
        (a `retainza` line per push; with --console, in the device view). See docs/retainza.md.
        Trusts the dev key and service account in certs/ plus --apns-key/--service-account. With no
        --devices file, any well-formed token is accepted for io.pushlab.demo / pushlab-dev
        (quick start). --images DIR serves rich-push images at /images/<name> on the Google host
        (default: payloads/assets of pushlab's files, so https://localhost:8443/images/demo-image.png
        works for the examples from any directory). Prints one line per accepted push; rejections are answered and,
        with --db, recorded. See docs/gateway.md.
        """
    static let host = Option.string("--host", name: "ADDR", help: "Address every listener binds (loopback unless you mean it).", default: "127.0.0.1")
    static let apnsPort = Option.int("--apns-port", name: "PORT", help: "APNs TLS port; 0 picks a free one.", in: 0...65535, default: 2197)
    static let apnsCleartextPort = Option.int("--apns-h2c-port", name: "PORT", help: "Also serve APNs in cleartext h2c on this port.", in: 0...65535)
    static let port = Option.int("--port", name: "PORT", help: "Google host TLS (h2 + HTTP/1.1) port: OAuth, FCM, collector, admin; 0 picks a free one.", in: 0...65535, default: 8443)
    static let cleartextPort = Option.int("--h2c-port", name: "PORT", help: "Google host cleartext port (h2c prior knowledge + HTTP/1.1); 0 picks a free one.", in: 0...65535, default: 8080)
    static let cert = Option.value(["--cert"], name: "PEM", help: "TLS certificate chain.", kind: .string,
                                   computed: "certs/server.pem") { ProjectFiles.defaultFile("certs/server.pem") }
    static let key = Option.value(["--key"], name: "PEM", help: "TLS private key.", kind: .string,
                                  computed: "certs/server.key") { ProjectFiles.defaultFile("certs/server.key") }
    static let devices = Option.string("--devices", name: "FILE", help: "Devices JSON ({\"devices\": [...]}); without it: quick-start mode.")
    static let db = Option.string("--db", name: "FILE", help: "Record every push in this SQLite file (pushlab report --gateway-db reads it).", described: "in memory")
    static let collectorDB = Option.string("--collector-db", name: "FILE", help: "SQLite file of the mounted collector.", described: "a temporary file, removed at exit")
    static let images = Option.string("--images", name: "DIR", help: "Serve the files of DIR at /images/<name> on the Google host (rich-push images).", described: "payloads/assets of pushlab's files")
    static let cdpKeys = Option.strings("--cdp-key", name: "KEY", help: "CDP API key the collector accepts.", default: ["pushlab-demo-cdp-key"])
    static let apnsKeys = Option.strings("--apns-key", name: "KEYID:TEAMID:PEM", help: "Also trust this APNs public key (optional :sandbox or :production).")
    static let apnsClientCA = Option.string("--apns-client-ca", name: "PEM", help: "Also accept APNs provider certificates issued by this CA (certificate authentication; certs/ca.pem signs the dev ones).")
    static let serviceAccounts = Option.strings("--service-account", name: "FILE", help: "Also trust this service account (its public half).")
    static let production = Option.flag("--production", help: "Play the production environment (no apns-unique-id; sandbox-only keys refused).")
    static let streamLimit = Option.int("--stream-limit", help: "MAX_CONCURRENT_STREAMS after the first authenticated request.", in: 1...100_000, default: 500)
    static let tokenRate = Option.int("--token-rate", help: "Pushes per second one device token may get before 429 TooManyRequests.", in: 1...1_000_000, described: "unlimited")
    static let tokenUpdates = Option.choice("--token-updates", help: "Count provider-token changes per connection, or also per team across connections (429 TooManyProviderTokenUpdates when a team's token changes within 20 minutes).", default: ProviderTokenUpdateScope.connection)
    static let idleTimeout = Option.duration("--idle-timeout", help: "Close idle APNs connections with GOAWAY {\"reason\":\"IdleTimeout\"}.", described: "never")
    static let faults = FaultFlags(example: "route=\(APNsPath.deviceRoute),status=503,p=0.1,retry-after=2", docs: "docs/gateway.md")
    static let eventLoops = Option.value(["--event-loops"], name: "N", help: "Event-loop threads per host; connections are spread over them.", kind: .int(1...64),
                                         computed: "one per core") { ProcessInfo.processInfo.activeProcessorCount }
    static let liveApp = Option.string("--live-app", name: "JSON", help: "App profile whose liveActivities block the virtual iPhones' activities use (content-state schema, budget).")
    static let quiet = Option.flag("--quiet", help: "No line per push.")
    static let bench = Option.flag("--bench", help: "Also answer POST /bench with an empty 200 (benchmarks/transport-server.sh).")

    static let options: [any OptionDeclaration] = [
        host, apnsPort, apnsCleartextPort, port, cleartextPort, cert, key, devices, db, collectorDB, images, cdpKeys, apnsKeys,
        apnsClientCA, serviceAccounts, production, streamLimit, tokenRate, tokenUpdates, idleTimeout,
    ] + faults.options + [eventLoops, liveApp, ServeRetainza.app, quiet, bench] + ConsoleSetup.options

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        // Caught from the start: a SIGINT or SIGTERM sent as soon as the banner shows is kept, not
        // lost to the default action (or dropped while the handler is being set up).
        let signals = TerminationSignals()
        var config = try gatewayConfiguration(args)
        let cert = config.certificateFile
        let certsDirectory = FilePaths.parent(of: cert).isEmpty ? "certs" : FilePaths.parent(of: cert)
        let keys = try gatewayKeys(args, certsDirectory: certsDirectory)
        let devices = try deviceRegistry(args)
        let retainzaProfile = try ServeRetainza.profile(args)
        if let retainzaProfile { ServeRetainza.register(retainzaProfile, in: devices) }
        let retainzaFleet = retainzaProfile.map { _ in RetainzaFleet() }

        let temporaryCollectorDB = !args.isGiven(Self.collectorDB)
        let collectorDB = try args[Self.collectorDB]
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("pushlab-serve-collector-\(getpid()).sqlite").path
        let images = try imagesDirectory(args)
        let cdpKeys = try args[Self.cdpKeys]
        let store: MetricStore
        do { store = try MetricStore(path: collectorDB) } catch { throw UsageError("--collector-db \(collectorDB): \(error)") }
        let collector = try MetricsCollector(configuration: CollectorConfiguration(credentials: CollectorCredentials(cdpAPIKeys: Set(cdpKeys))),
                                             store: store)
        let bench = args[Self.bench]
        let channels = BroadcastChannelRegistry()
        let activities = try liveActivityFleet(args, channels: channels)
        let lines: (any PushDeliverySink)? = args[quiet] ? nil : PushLogLine()
        let console = try ConsoleSetup.console(args, next: lines)
        config.recordObserver = console?.gatewayFeed
        let first: (any PushDeliverySink)? = retainzaFleet.map { ServeRetainza.Sink(fleet: $0, lines: lines, next: console ?? lines) } ?? console ?? lines
        let gateway = try Gateway(configuration: config, keys: keys, devices: devices,
                                  sink: SinkPair(first: first, second: activities), broadcastSink: activities,
                                  channels: channels) { router in
            console?.register(on: &router)
            LiveActivityAdminRoutes(fleet: activities).register(on: &router)
            router.add("GET", "/health") { _ in .now(.json(200, #"{"status":"ok"}"#)) }
            collector.register(on: &router)
            if let images { ImageServer.register(on: &router, directory: images) }
            if bench { router.add("POST", "/bench") { _ in .now(ServerResponse(status: 200)) } }
        }
        do { try gateway.start() } catch { throw UsageError("\(error)", fix: "pick other ports (0 picks free ones)") }

        announceAddresses(of: gateway, images: images, certsDirectory: certsDirectory)
        let consoleClient = try console.map {
            try ConsoleSetup.attach($0, args, gateway: gateway, collector: collector, certsDirectory: certsDirectory, cdpKey: cdpKeys[0])
        }
        if let console, let url = Console.url(of: gateway) { emit(try ConsoleSetup.announcement(url: url, console, args)) }
        var retainzaClient: HTTPClient?
        if let retainzaProfile, let retainzaFleet {
            let started = try await ServeRetainza.start(retainzaProfile, fleet: retainzaFleet, gateway: gateway, certsDirectory: certsDirectory,
                                                        console: console, quiet: args[quiet])
            retainzaClient = started.client
            for line in started.lines { emit(line) }
        }
        emit(devices.isQuickStart ? "quick start: any well-formed token for \(devices.quickStartBundleID) / \(devices.quickStartProject)"
                                  : args.isGiven(Self.devices) ? "\(devices.devices.count) device(s) from --devices"
                                  : "\(devices.devices.count) device(s): the --retainza-app iPhone (quick start is off while devices are registered)")
        let signal = await signals.wait()
        printError("pushlab serve: signal \(signal), finishing in-flight requests")
        console?.stop()
        // The Retainza iPhone finishes the pushes it got (its acks go to this collector) first.
        await retainzaFleet?.waitUntilIdle()
        await gateway.stop()
        await retainzaClient?.shutdown()
        for client in consoleClient ?? [] { await client.shutdown() }
        if console != nil || retainzaProfile != nil { try? FileManager.default.removeItem(at: ConsoleSetup.workDirectory) }
        collector.flush()
        if temporaryCollectorDB {
            for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: collectorDB + suffix) }
        }
        return ExitStatus.success
    }

    /// The gateway's configuration from the options (the TLS files checked readable first).
    private static func gatewayConfiguration(_ args: ParsedArguments) throws -> GatewayConfiguration {
        let cert = try args[Self.cert]
        let key = try args[Self.key]
        for (flag, file) in [("--cert", cert), ("--key", key)] where !FileManager.default.isReadableFile(atPath: file) {
            throw UsageError("\(flag) \(file): cannot read the file",
                             fix: ProjectFiles.root == nil ? ProjectFiles.missingFix : "pass \(flag) with a PEM file (certs/README.md)")
        }
        KeyFilePermissions.warnIfShared(key, flag: "--key")
        var config = GatewayConfiguration(certificateFile: cert, privateKeyFile: key)
        config.host = try args[host]
        config.apnsPort = try args[apnsPort]
        config.apnsCleartextPort = try args[apnsCleartextPort]
        config.fcmPort = try args[port]
        config.fcmCleartextPort = try args[cleartextPort]
        config.environment = args[production] ? .productionOnly : .sandboxOnly
        config.authenticatedStreamLimit = UInt32(try args[streamLimit])
        config.perTokenLimit = try args[tokenRate]
        config.providerTokenUpdates = try args[tokenUpdates]
        config.idleTimeout = try args[idleTimeout]
        config.recordsPath = try args[db]
        config.faultPlan = try faults.plan(args)
        config.eventLoops = try args[eventLoops]
        if let ca = try args[apnsClientCA] {
            guard FileManager.default.isReadableFile(atPath: ca) else {
                throw UsageError("--apns-client-ca \(ca): cannot read the file", fix: "pass the PEM file of the CA that issued the provider certificates, e.g. certs/ca.pem")
            }
            config.apnsClientCertificateCAFile = ca
        }
        return config
    }

    /// The keys the gateway trusts: the development defaults beside the certificate, then --apns-key and --service-account.
    private static func gatewayKeys(_ args: ParsedArguments, certsDirectory: String) throws -> GatewayKeys {
        let keys: GatewayKeys
        do {
            keys = FileManager.default.fileExists(atPath: certsDirectory + "/AuthKey_PLDEVKEY01.pub.pem")
                ? try GatewayKeys.developmentDefaults(certsDirectory: certsDirectory) : GatewayKeys()
            for spec in try args[apnsKeys] { try keys.trustAPNsKey(spec: spec) }
            for file in try args[serviceAccounts] { try keys.trustServiceAccount(path: file) }
        } catch let error as GatewayConfigError {
            throw UsageError(error.reason, fix: error.fix)
        } catch { throw UsageError("\(error)") }
        return keys
    }

    private static func deviceRegistry(_ args: ParsedArguments) throws -> DeviceRegistry {
        let devices: DeviceRegistry
        do { devices = try args[Self.devices].map { try DeviceRegistry.load(path: $0) } ?? DeviceRegistry() } catch {
            if let error = error as? GatewayConfigError { throw UsageError("--devices \(error.reason)", fix: error.fix) }
            throw UsageError("--devices \(error)")
        }
        return devices
    }

    /// The phones' Live Activities (--live-app), with a line for each push a phone did not apply unless --quiet.
    private static func liveActivityFleet(_ args: ParsedArguments, channels: BroadcastChannelRegistry) throws -> LiveActivityFleet {
        var liveProfile = LiveActivityProfile()
        if let path = try args[liveApp] {
            do { liveProfile = try AppProfile.load(path: path).liveActivities ?? liveProfile } catch {
                throw UsageError("--live-app \(error.reason)", fix: error.fix)
            }
        }
        // A Live Activity push a phone did not apply gets a line, like every push.
        var notApplied: (@Sendable (String, LiveActivityTimelineEvent) -> Void)?
        if !args[quiet] {
            notApplied = { (device: String, event: LiveActivityTimelineEvent) in
                let line: String = "live activity " + device + " " + (event.activityID ?? "-") + ": " + event.kind.rawValue + " — " + event.detail
                emit(line)
            }
        }
        return LiveActivityFleet(channels: channels, profile: liveProfile, onNotApplied: notApplied)
    }

    private static func announceAddresses(of gateway: Gateway, images: String?, certsDirectory: String) {
        if let google = gateway.googleAddresses {
            if let url = google.tlsURL { emit("\(url) (h2, http/1.1): OAuth /token, FCM /v1/projects/…/messages:send, collector, /admin, /health") }
            if let url = google.cleartextURL { emit("\(url) (h2c, http/1.1): the same routes in cleartext") }
            if let images, let url = google.tlsURL ?? google.cleartextURL { emit("images: \(url)/images/<name> from \(images)/") }
        }
        if let apns = gateway.apnsAddresses {
            if let url = apns.tlsURL { emit("APNs: \(url) (h2)   e.g. pushlab send apns --url \(url) --ca-file \(certsDirectory)/ca.pem …") }
            if let url = apns.cleartextURL { emit("APNs: \(url) (h2c)") }
        }
    }

    /// `--images DIR`, or payloads/assets of pushlab's files (ProjectFiles); nil: no image route.
    private static func imagesDirectory(_ args: ParsedArguments) throws -> String? {
        var isDirectory: ObjCBool = false
        guard let dir = try args[images] else {
            let fallback = ProjectFiles.defaultFile("payloads/assets")
            return FileManager.default.fileExists(atPath: fallback, isDirectory: &isDirectory) && isDirectory.boolValue ? fallback : nil
        }
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw UsageError("--images \(dir): not a directory", fix: "pass the directory that holds the images, e.g. --images payloads/assets")
        }
        return dir.hasSuffix("/") ? String(dir.dropLast()) : dir
    }
}
