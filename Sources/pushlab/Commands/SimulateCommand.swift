import Foundation
import PushCore
import PushDevice
import OfflineLab

/// `pushlab simulate`: how many delivered metrics are lost, recovered, duplicated under faults.
enum SimulateCommand: Command {
    static let path = ["simulate"]
    static let summary = "Measure delivered-metric loss and App Group recovery under seeded faults."
    static let discussion = """
    Sends N pushes through the real stack (APNs client → gateway emulator → the device's
    Notification Service Extension → metrics collector) with seeded faults: extensions killed
    before their metric completes, failing metric requests, collector outages, image latency.
    App launches recover what the App Group store kept. The pushes are spread over --devices
    phones by the seed; each phone runs its extensions one at a time in push order, on its own
    emulated clock, so the same seed gives the same counts whatever the machine's load. Prints
    one table row per store, counted from the collector's records. See docs/recovery.md.
    --platform android runs the same seeded faults on a virtual Android phone with the
    Customer.io Android SDK (FCM client → gateway → the SDK's pending store, WorkManager retries
    and foreground hand-off → collector); --platform both runs each store on both and prints
    iOS and Android side by side, per fault. Stores map to off = SDK 4.11–4.17 (no pending
    store), cio = the SDK's pending store (4.18+), sqlite = pushlab's improved mode.
    --sdk retainza runs the pushes on phones with the Retainza iOS SDK (FCM token, handlers,
    offline queue, consent) and --compare-sdks runs the same seeded faults on Customer.io and
    Retainza phones side by side: pushes received, opens counted and lost by cause, events
    queued, dropped and delivered late (docs/retainza.md).
    """
    // Defaults come from the simulation's own parameters, so help shows what a run uses.
    private static let defaults = SimulationParameters()
    private static let androidDefaults = AndroidSimulationSettings()

    static let pushes = Option.int("--pushes", "-n", help: "Pushes to send.", in: 1...1_000_000, default: defaults.pushes)
    static let seed = Option.value(["--seed"], name: "S", help: "Seed for every fault decision.", kind: .uint64, default: defaults.seed)
    static let appGroup = Option.value(["--app-group"], name: "off|cio|sqlite", help: "App Group store (cio = reference SDK 4.x; sqlite = pushlab's improved mode).",
                                       kind: .choice(SimulatedStore.self), default: .cio)
    static let compare = Option.flag("--compare", help: "Run the same seed for off, cio and sqlite.")
    static let killRate = Option.double("--kill-rate", name: "P", help: "Probability an extension is killed before its metric completes.", in: 0...1, default: defaults.killRate)
    static let killStage = Option.value(["--kill-stage"], name: "STAGE", help: "before-send (metric never leaves), in-flight (metric arrives, its row is not removed) or mixed.",
                                        kind: .choice(KillStage.self), default: defaults.killStage)
    static let metricFailureRate = Option.double("--metric-failure-rate", name: "P", help: "Probability a delivered-metric request fails on the network.", in: 0...1, default: defaults.metricFailureRate)
    static let outages = Option.values(["--outage"], name: "A-B", help: "Pushes A…B meet a collector outage (their metric requests fail).", kind: pushRange)
    static let offline = Option.values(["--offline"], name: "A-B", help: "Pushes A…B reach phones without network: the metric waits (iOS: for a launch; Android: for WorkManager once the network is back after the span).", kind: pushRange)
    static let devices = Option.int("--devices", help: "Phones the pushes are spread over (seeded), each with its own store.", in: 1...100_000, default: defaults.devices)
    static let extensionsPerPhone = Option.int("--extensions-per-phone", help: "iOS: extensions one phone runs at once, in push order. Above 1 the counts depend on thread timing (stress mode: --devices 1 --extensions-per-phone 64).",
                                               in: 1...1_000, default: defaults.extensionsPerPhone)
    static let imageLatency = Option.value(["--image-latency"], name: "DIST", help: "Image latency: fixed:200ms, uniform:50ms:400ms, normal:300ms:100ms.",
                                           kind: ValueKind<LatencyDistribution>(parse: { raw, flag in
                                               guard let d = LatencyDistribution(text: raw) else {
                                                   throw UsageError("\(flag) takes fixed:200ms, uniform:50ms:400ms or normal:300ms:100ms, got '\(raw)'")
                                               }
                                               return d
                                           }, text: \.text, example: "fixed:200ms"),
                                           default: defaults.imageLatency)
    static let budget = Option.duration("--budget", help: "The extension's time budget.", default: defaults.budget)
    static let timeScale = Option.removed("--time-scale",
                                          message: "--time-scale was removed: the simulation runs on an emulated clock (each extension run keeps its own), so it stretched nothing",
                                          fix: "drop --time-scale; the counts and the emulated times are the same without it (docs/recovery.md)")
    static let launches = Option.int("--launches", help: "App cold starts, spread evenly; the last after the last push.", in: 0...10_000, default: defaults.launches)
    static let misconfiguredAppGroup = Option.flag("--misconfigured-app-group", help: "Extension bundle id with a suffix the SDK does not strip: the store is silently off.")
    static let concurrency = Option.int("--concurrency", help: "Pushes in flight at once.", in: 1...1_000, default: defaults.concurrency)
    static let chart = Option.string("--chart", name: "FILE.svg", help: "Also sweep kill rates 5–50% per store (and platform) and draw recovery ratio against kill rate.")
    static let app = Option.value(["--app"], name: "FILE", help: "App profile.", kind: .string,
                                  computed: "payloads/apps/demo.json") { ProjectFiles.defaultFile("payloads/apps/demo.json") }
    static let platform = Option.value(["--platform"], name: "ios|android|both", help: "The phone the pushes go to; both: each store on both, side by side per fault.",
                                       kind: ValueKind<[SimulatedPlatform]>(parse: { raw, flag in
                                           switch raw {
                                           case "ios": return [.ios]
                                           case "android": return [.android]
                                           case "both": return [.ios, .android]
                                           default: throw UsageError("\(flag) must be ios, android or both, got '\(raw)'")
                                           }
                                       }, text: { $0.count == 2 ? "both" : $0.first?.rawValue ?? "ios" }, example: "android"),
                                       default: [.ios])
    static let androidApp = Option.value(["--android-app"], name: "FILE", help: "Android app profile (its SDK mode is set per store).", kind: .string,
                                         computed: "payloads/apps/android-demo.json") { ProjectFiles.defaultFile("payloads/apps/android-demo.json") }
    static let dozeRate = Option.double("--doze-rate", name: "P", help: "Android: probability a push arrives while the phone dozes for 2 h (no network, no jobs).", in: 0...1, default: androidDefaults.dozeRate)
    static let launchAfter = Option.duration("--launch-after", help: "Android: the app comes to the foreground this long after each push (with --launches ≥ 1).",
                                             default: .milliseconds(androidDefaults.launchAfterMs))
    static let horizon = Option.duration("--horizon", help: "Android: a metric still on the phone this long after its push counts as lost.",
                                         default: .milliseconds(androidDefaults.horizonMs))
    static let json = Option.flag("--json", help: "Print the results as JSON.")
    static let sdk = Option.choice("--sdk", name: "cio|retainza", help: "The iPhone's SDK: cio runs the delivered-metric experiment; retainza the Retainza SDK's opens and offline queue.",
                                   described: "cio") as TypedOption<SDKComparison.SDK?>
    static let compareSDKs = Option.flag("--compare-sdks", help: "Run the same seeded faults on Customer.io and Retainza phones and print both.")
    static let retainzaApp = Option.string("--retainza-app", name: "FILE", help: "Retainza app profile for --sdk retainza / --compare-sdks.",
                                           described: "payloads/apps/retainza-demo.json")

    static let options: [any OptionDeclaration] = [
        pushes, seed, appGroup, compare, killRate, killStage, metricFailureRate, outages, offline, devices, extensionsPerPhone, imageLatency,
        budget, timeScale, launches, misconfiguredAppGroup, concurrency, chart, app, platform, androidApp, dozeRate, launchAfter, horizon, json,
        sdk, compareSDKs, retainzaApp,
    ]

    /// `A-B` push ranges (1-based, inclusive).
    private static let pushRange = ValueKind<ClosedRange<Int>>(parse: { raw, flag in
        let parts = raw.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 2, let a = parts[0], let b = parts[1], a >= 1, a <= b else {
            throw UsageError("\(flag) takes a push range like 200-300 (first push 1), got '\(raw)'")
        }
        return a...b
    }, text: { "\($0.lowerBound)-\($0.upperBound)" }, example: "2-3")

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let root = try ProjectFiles.require("simulation files")
        var p = try parameters(args)
        let chosenSDK = try args[sdk]
        if args[compareSDKs] || chosenSDK == .retainza {
            // Options of the other experiments would be ignored without a word (an Android run
            // asked for, a chart never drawn): refuse them.
            let ignored: [any OptionDeclaration] = [platform, compare, appGroup, chart, androidApp, dozeRate, launchAfter, horizon]
            if let given = ignored.first(where: { args.isGiven($0) }) {
                let mode = args[compareSDKs] ? "--compare-sdks" : "--sdk retainza"
                throw UsageError("\(given.spec.primary) does not apply to \(mode): the SDK runs are iPhones only, with no App Group store sweep or chart",
                                 fix: "leave out \(given.spec.primary), or run it without \(mode)")
            }
            return try await runSDKs(args, parameters: p, root: root)
        }
        if args.isGiven(retainzaApp) {
            throw UsageError("--retainza-app applies only to the SDK runs", fix: "add --sdk retainza or --compare-sdks, or leave out --retainza-app")
        }
        var stores = [try args[appGroup]]
        if args[compare] { stores = SimulatedStore.allCases }
        let profilePath = try args[app]
        let profile: AppProfile
        do { profile = try AppProfile.load(path: profilePath) } catch { throw UsageError("--app \(error.reason)", fix: error.fix) }
        var simulation = Simulation(certsDirectory: root + "/certs", assetsDirectory: root + "/payloads/assets", profile: profile)
        let platforms = try args[platform]
        if platforms.contains(.android) {
            p.android = try androidSettings(args)
            let path = try args[androidApp]
            do { simulation.androidProfile = try AndroidAppProfile.load(path: path) } catch { throw UsageError("--android-app \(error.reason)", fix: error.fix) }
        }

        var results: [SimulationResult] = []
        var androidResults: [SimulationResult] = []
        for store in stores {
            var run = p
            run.store = store
            if platforms.contains(.ios) {
                run.android = nil
                results.append(try await simulation.run(run, progress: progressLine(label: platforms.count > 1 ? "iOS \(store.rawValue)" : store.rawValue)))
                if stderrIsTTY { writeError("\n") }
            }
            if platforms.contains(.android) {
                run.android = p.android
                androidResults.append(try await simulation.runAndroid(run, progress: progressLine(label: "Android \(store.androidSDKMode.rawValue)")))
                if stderrIsTTY { writeError("\n") }
            }
        }
        // The iPhone's output stays what it was before the Android phone: no per-fault rows.
        if platforms == [.ios] { results = results.map { var r = $0; r.byFault = nil; return r } }

        let sweep = try await recoverySweep(args, parameters: p, platforms: platforms, stores: stores, simulation: simulation)
        try printResults(args, parameters: p, stores: stores, platforms: platforms, ios: results, android: androidResults, sweep: sweep)
        return ExitStatus.success
    }

    /// The simulation's parameters, from the options they share.
    private static func parameters(_ args: ParsedArguments) throws -> SimulationParameters {
        var p = SimulationParameters()
        p.pushes = try args[pushes]
        p.seed = try args[seed]
        p.killRate = try args[killRate]
        p.killStage = try args[killStage]
        p.metricFailureRate = try args[metricFailureRate]
        p.outages = try args[outages]
        p.offline = try args[offline]
        p.devices = try args[devices]
        p.extensionsPerPhone = try args[extensionsPerPhone]
        p.imageLatency = try args[imageLatency]
        p.budget = try args[budget]
        p.launches = try args[launches]
        p.misconfiguredAppGroup = args[misconfiguredAppGroup]
        p.concurrency = try args[concurrency]
        return p
    }

    /// With --chart: the recovery ratio at kill rates 5–50% per store (and platform), drawn to the file.
    private static func recoverySweep(_ args: ParsedArguments, parameters p: SimulationParameters, platforms: [SimulatedPlatform],
                                      stores: [SimulatedStore], simulation: Simulation) async throws -> [(String, [RecoveryChart.Point])] {
        var sweep: [(String, [RecoveryChart.Point])] = []
        guard let chart = try args[Self.chart] else { return sweep }
        for platform in platforms {
            for store in stores {
                var points: [RecoveryChart.Point] = []
                let name = platforms == [.ios] ? store.rawValue : platform == .ios ? "iOS \(store.rawValue)" : "Android \(store.androidSDKMode.rawValue)"
                for rate in [0.05, 0.1, 0.2, 0.3, 0.4, 0.5] {
                    var run = p
                    run.store = store
                    run.killRate = rate
                    let label = "\(name) kill \(Int(rate * 100))%"
                    let r = platform == .ios ? try await simulation.run(run, progress: progressLine(label: label))
                                             : try await simulation.runAndroid(run, progress: progressLine(label: label))
                    if let ratio = r.recoveryRatio { points.append(.init(killRate: rate, recoveryRatio: ratio)) }
                }
                // No point: the store missed nothing at any kill rate (recovery ratio undefined).
                sweep.append((points.isEmpty ? name + " (nothing missed)" : name, points))
            }
        }
        if stderrIsTTY { writeError("\n") }
        let svg = RecoveryChart.svg(series: sweep, title: "Delivered-metric recovery, \(p.pushes) pushes per point, seed \(p.seed)")
        do { try svg.write(toFile: chart, atomically: true, encoding: .utf8) } catch {
            throw UsageError("\(chart): cannot write the chart (\(error.localizedDescription))")
        }
        return sweep
    }

    private static func printResults(_ args: ParsedArguments, parameters p: SimulationParameters, stores: [SimulatedStore],
                                     platforms: [SimulatedPlatform], ios results: [SimulationResult], android androidResults: [SimulationResult],
                                     sweep: [(String, [RecoveryChart.Point])]) throws {
        if args[json] {
            struct Output: Encodable {
                var results: [SimulationResult]
                var chart: [String: [Point]]?
                struct Point: Encodable { var killRate: Double; var recoveryRatio: Double }
            }
            let chart = sweep.isEmpty ? nil : Dictionary(uniqueKeysWithValues: sweep.map { ($0.0, $0.1.map { Output.Point(killRate: $0.killRate, recoveryRatio: $0.recoveryRatio) }) })
            print(try renderJSON(Output(results: results + androidResults, chart: chart)))
        } else {
            print(describe(p, stores: stores, iPhone: platforms.contains(.ios)))
            if !results.isEmpty { print(SimulationResult.markdown(results), terminator: "") }
            if !androidResults.isEmpty {
                if !results.isEmpty { print("\nAndroid (\(describeAndroid(p.android ?? AndroidSimulationSettings(), launches: p.launches))):") }
                else { print("Android: \(describeAndroid(p.android ?? AndroidSimulationSettings(), launches: p.launches))") }
                print(SimulationResult.androidMarkdown(androidResults), terminator: "")
            }
            if !results.isEmpty && !androidResults.isEmpty {
                print("\niOS vs Android, per fault (lost: no delivered metric reached the collector; recovered: it came by the app's launch):")
                print(SimulationResult.comparisonMarkdown(ios: results, android: androidResults), terminator: "")
            }
            print(String(format: "wall time: %.1f s", (results + androidResults).map(\.wallSeconds).reduce(0, +)))
            if let chart = try args[Self.chart] { print("chart written to \(chart)") }
        }
    }

    private static func androidSettings(_ args: ParsedArguments) throws -> AndroidSimulationSettings {
        var a = AndroidSimulationSettings()
        a.dozeRate = try args[dozeRate]
        a.launchAfterMs = try args[launchAfter].milliseconds
        let horizon = try args[Self.horizon]
        guard horizon > .zero else { throw UsageError("--horizon must be more than 0, got '\(horizon.compactText)'") }
        a.horizonMs = horizon.milliseconds
        return a
    }

    private static func describeAndroid(_ a: AndroidSimulationSettings, launches: Int) -> String {
        var parts: [String] = []
        if a.dozeRate > 0 { parts.append("doze rate \(a.dozeRate) (2 h from arrival)") }
        parts.append(launches > 0 ? "app opened \(hours(a.launchAfterMs)) after each push" : "app never opened")
        parts.append("horizon \(hours(a.horizonMs))")
        return parts.joined(separator: ", ")
    }

    /// `1 h`, `90 min`, `45 s`, `250 ms`.
    private static func hours(_ ms: Int64) -> String {
        if ms >= 3_600_000 && ms % 3_600_000 == 0 { return "\(ms / 3_600_000) h" }
        if ms >= 60_000 && ms % 60_000 == 0 { return "\(ms / 60_000) min" }
        if ms >= 1000 && ms % 1000 == 0 { return "\(ms / 1000) s" }
        return "\(ms) ms"
    }

    static func describe(_ p: SimulationParameters, stores: [SimulatedStore], iPhone: Bool = true) -> String {
        var parts = ["\(p.pushes) pushes", "seed \(p.seed)", "kill rate \(p.killRate) (\(p.killStage.rawValue))"]
        if p.metricFailureRate > 0 { parts.append("metric failure rate \(p.metricFailureRate)") }
        if !p.outages.isEmpty { parts.append("outages " + p.outages.map { "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ",")) }
        if !p.offline.isEmpty { parts.append("offline " + p.offline.map { "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ",")) }
        parts.append("\(p.devices) phone(s)" + (iPhone && p.extensionsPerPhone > 1 ? ", \(p.extensionsPerPhone) extensions at once per iPhone (counts depend on thread timing)" : ""))
        if iPhone {
            parts.append("image latency \(p.imageLatency.text)")
            parts.append("budget \(p.budget.compactText)")
        }
        parts.append("\(p.launches) launch(es)")
        if p.misconfiguredAppGroup { parts.append("misconfigured App Group id") }
        return parts.joined(separator: ", ") + "\n"
    }

    /// A one-line progress display on a terminal (stderr), silent otherwise.
    static func progressLine(label: String) -> @Sendable (Int, Int) -> Void {
        guard stderrIsTTY else { return { _, _ in } }
        let start = Date()
        return { done, total in
            guard done == total || done % 50 == 0 else { return }
            let rate = Double(done) / max(Date().timeIntervalSince(start), 0.001)
            let eta = rate > 0 ? Double(total - done) / rate : 0
            let line = String(format: "\r%@: %d/%d pushes, %.0f/s, ETA %.0f s   ", label, done, total, rate, eta)
            writeError(line)
        }
    }
}
