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
    """
    static let options: [OptionSpec] = [
        .value("--pushes", "-n", name: "N", help: "Pushes to send.", default: "1000"),
        .value("--seed", name: "S", help: "Seed for every fault decision.", default: "1"),
        .value("--app-group", name: "off|cio|sqlite", help: "App Group store (cio = reference SDK 4.x; sqlite = pushlab's improved mode).", default: "cio"),
        .flag("--compare", help: "Run the same seed for off, cio and sqlite."),
        .value("--kill-rate", name: "P", help: "Probability an extension is killed before its metric completes.", default: "0.1"),
        .value("--kill-stage", name: "STAGE", help: "before-send (metric never leaves), in-flight (metric arrives, its row is not removed) or mixed.", default: "before-send"),
        .value("--metric-failure-rate", name: "P", help: "Probability a delivered-metric request fails on the network.", default: "0"),
        .value("--outage", name: "A-B", help: "Pushes A…B meet a collector outage (their metric requests fail).", repeatable: true),
        .value("--offline", name: "A-B", help: "Pushes A…B reach phones without network: the metric waits (iOS: for a launch; Android: for WorkManager once the network is back after the span).", repeatable: true),
        .value("--devices", name: "N", help: "Phones the pushes are spread over (seeded), each with its own store.", default: "100"),
        .value("--extensions-per-phone", name: "N", help: "iOS: extensions one phone runs at once, in push order. Above 1 the counts depend on thread timing (stress mode: --devices 1 --extensions-per-phone 64).", default: "1"),
        .value("--image-latency", name: "DIST", help: "Image latency: fixed:200ms, uniform:50ms:400ms, normal:300ms:100ms.", default: "uniform:50ms:400ms"),
        .value("--budget", name: "DURATION", help: "The extension's time budget.", default: "30s"),
        .value("--time-scale", name: "X", help: "Kept for scripts; no effect: each extension run keeps its own emulated clock (docs/recovery.md).", default: "20"),
        .value("--launches", name: "N", help: "App cold starts, spread evenly; the last after the last push.", default: "1"),
        .flag("--misconfigured-app-group", help: "Extension bundle id with a suffix the SDK does not strip: the store is silently off."),
        .value("--concurrency", name: "N", help: "Pushes in flight at once.", default: "64"),
        .value("--chart", name: "FILE.svg", help: "Also sweep kill rates 5–50% per store (and platform) and draw recovery ratio against kill rate."),
        .value("--app", name: "FILE", help: "App profile.", default: "payloads/apps/demo.json"),
        .value("--platform", name: "ios|android|both", help: "The phone the pushes go to; both: each store on both, side by side per fault.", default: "ios"),
        .value("--android-app", name: "FILE", help: "Android app profile (its SDK mode is set per store).", default: "payloads/apps/android-demo.json"),
        .value("--doze-rate", name: "P", help: "Android: probability a push arrives while the phone dozes for 2 h (no network, no jobs).", default: "0"),
        .value("--launch-after", name: "DURATION", help: "Android: the app comes to the foreground this long after each push (with --launches ≥ 1).", default: "1h"),
        .value("--horizon", name: "DURATION", help: "Android: a metric still on the phone this long after its push counts as lost.", default: "24h"),
        .flag("--json", help: "Print the results as JSON."),
    ]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let root = try ProjectFiles.require("simulation files")
        var p = SimulationParameters()
        p.pushes = try args.int("--pushes", range: 1...1_000_000) ?? p.pushes
        p.seed = try args.value("--seed").map { raw in
            guard let s = UInt64(raw) else { throw UsageError("--seed takes a whole number ≥ 0, got '\(raw)'") }
            return s
        } ?? p.seed
        p.killRate = try args.double("--kill-rate", range: 0...1) ?? p.killRate
        if let raw = args.value("--kill-stage") {
            guard let s = KillStage(rawValue: raw) else { throw UsageError("--kill-stage must be before-send, in-flight or mixed, got '\(raw)'") }
            p.killStage = s
        }
        p.metricFailureRate = try args.double("--metric-failure-rate", range: 0...1) ?? p.metricFailureRate
        p.outages = try pushRanges(args, "--outage")
        p.offline = try pushRanges(args, "--offline")
        p.devices = try args.int("--devices", range: 1...100_000) ?? p.devices
        p.extensionsPerPhone = try args.int("--extensions-per-phone", range: 1...1_000) ?? p.extensionsPerPhone
        if let raw = args.value("--image-latency") {
            guard let d = LatencyDistribution(text: raw) else {
                throw UsageError("--image-latency takes fixed:200ms, uniform:50ms:400ms or normal:300ms:100ms, got '\(raw)'")
            }
            p.imageLatency = d
        }
        p.budget = try args.duration("--budget") ?? p.budget
        p.timeScale = try args.double("--time-scale", range: 1...10_000) ?? p.timeScale
        p.launches = try args.int("--launches", range: 0...10_000) ?? p.launches
        p.misconfiguredAppGroup = args.flag("--misconfigured-app-group")
        p.concurrency = try args.int("--concurrency", range: 1...1_000) ?? p.concurrency
        var stores: [SimulatedStore] = [.cio]
        if let raw = args.value("--app-group") {
            guard let s = SimulatedStore(rawValue: raw) else { throw UsageError("--app-group must be off, cio or sqlite, got '\(raw)'") }
            stores = [s]
        }
        if args.flag("--compare") { stores = SimulatedStore.allCases }
        let profilePath = args.value("--app") ?? root + "/payloads/apps/demo.json"
        let profile: AppProfile
        do { profile = try AppProfile.load(path: profilePath) } catch { throw UsageError("--app \(error.reason)", fix: error.fix) }
        var simulation = Simulation(certsDirectory: root + "/certs", assetsDirectory: root + "/payloads/assets", profile: profile)
        let platforms = try platforms(args)
        if platforms.contains(.android) {
            p.android = try androidSettings(args)
            if let path = args.value("--android-app") {
                do { simulation.androidProfile = try AndroidAppProfile.load(path: path) } catch { throw UsageError("--android-app \(error.reason)", fix: error.fix) }
            }
        }

        var results: [SimulationResult] = []
        var androidResults: [SimulationResult] = []
        for store in stores {
            var run = p
            run.store = store
            if platforms.contains(.ios) {
                run.android = nil
                results.append(try await simulation.run(run, progress: progressLine(label: platforms.count > 1 ? "iOS \(store.rawValue)" : store.rawValue)))
                if stderrIsTTY { FileHandle.standardError.write(Data("\n".utf8)) }
            }
            if platforms.contains(.android) {
                run.android = p.android
                androidResults.append(try await simulation.runAndroid(run, progress: progressLine(label: "Android \(store.androidSDKMode.rawValue)")))
                if stderrIsTTY { FileHandle.standardError.write(Data("\n".utf8)) }
            }
        }
        // The iPhone's output stays what it was before the Android phone: no per-fault rows.
        if platforms == [.ios] { results = results.map { var r = $0; r.byFault = nil; return r } }

        var sweep: [(String, [RecoveryChart.Point])] = []
        if let chart = args.value("--chart") {
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
            if stderrIsTTY { FileHandle.standardError.write(Data("\n".utf8)) }
            let svg = RecoveryChart.svg(series: sweep, title: "Delivered-metric recovery, \(p.pushes) pushes per point, seed \(p.seed)")
            do { try svg.write(toFile: chart, atomically: true, encoding: .utf8) } catch {
                throw UsageError("\(chart): cannot write the chart (\(error.localizedDescription))")
            }
        }

        if args.flag("--json") {
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
            if let chart = args.value("--chart") { print("chart written to \(chart)") }
        }
        return ExitStatus.success
    }

    /// `A-B` push ranges (1-based, inclusive) of a repeatable flag.
    private static func pushRanges(_ args: ParsedArguments, _ flag: String) throws -> [ClosedRange<Int>] {
        try args.all(flag).map { raw in
            let parts = raw.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
            guard parts.count == 2, let a = parts[0], let b = parts[1], a >= 1, a <= b else {
                throw UsageError("\(flag) takes a push range like 200-300 (first push 1), got '\(raw)'")
            }
            return a...b
        }
    }

    private static func platforms(_ args: ParsedArguments) throws -> [SimulatedPlatform] {
        switch args.value("--platform") ?? "ios" {
        case "ios": return [.ios]
        case "android": return [.android]
        case "both": return [.ios, .android]
        case let raw: throw UsageError("--platform must be ios, android or both, got '\(raw)'")
        }
    }

    private static func androidSettings(_ args: ParsedArguments) throws -> AndroidSimulationSettings {
        var a = AndroidSimulationSettings()
        a.dozeRate = try args.double("--doze-rate", range: 0...1) ?? a.dozeRate
        if let d = try args.duration("--launch-after") { a.launchAfterMs = d.milliseconds }
        if let d = try args.duration("--horizon") {
            guard d > .zero else { throw UsageError("--horizon must be more than 0, got '\(args.value("--horizon") ?? "")'") }
            a.horizonMs = d.milliseconds
        }
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

    private static func describe(_ p: SimulationParameters, stores: [SimulatedStore], iPhone: Bool = true) -> String {
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
    private static func progressLine(label: String) -> @Sendable (Int, Int) -> Void {
        guard stderrIsTTY else { return { _, _ in } }
        let start = Date()
        return { done, total in
            guard done == total || done % 50 == 0 else { return }
            let rate = Double(done) / max(Date().timeIntervalSince(start), 0.001)
            let eta = rate > 0 ? Double(total - done) / rate : 0
            let line = String(format: "\r%@: %d/%d pushes, %.0f/s, ETA %.0f s   ", label, done, total, rate, eta)
            FileHandle.standardError.write(Data(line.utf8))
        }
    }
}
