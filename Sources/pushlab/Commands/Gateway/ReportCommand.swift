import Foundation
import PushCore
import PushMetrics

/// `pushlab report`: delivery metrics per delivery id, totals and rates, from the collector's
/// SQLite file (and the gateway's, for what was sent).
enum ReportCommand: Command {
    static let path = ["report"]
    static let summary = "Report delivery metrics: per delivery id, totals and rates by route and SDK."
    static let discussion = """
        Reads the collector's --db (written by 'pushlab collector') and, with --gateway-db, the \
        gateway's record of accepted pushes to count what was sent and lost. Rates and the \
        'recovered at launch' rule are defined in docs/metrics.md. Tables for people; --json \
        for scripts (every delivery id).
        """
    static let db = Option.string("--db", name: "PATH", help: "The collector's SQLite file.", default: "pushlab-metrics.sqlite")
    static let gatewayDB = Option.string("--gateway-db", name: "PATH", help: "The gateway's SQLite file (table 'pushes') for sent/lost counts.")
    static let recoveryThreshold = Option.duration("--recovery-threshold",
                                                   help: "A delivered metric whose timestamp is older than its arrival by more than this counts as recovered.",
                                                   default: .seconds(60))
    static let limit = Option.int("--limit", help: "Delivery ids listed in the table (0: all).", in: 0...Int.max, default: 50)
    static let json = Option.flag("--json", help: "Print the report as JSON.")

    static let options: [any OptionDeclaration] = [db, gatewayDB, recoveryThreshold, limit, json]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let dbPath = try args[db]
        guard FileManager.default.fileExists(atPath: dbPath) else {
            throw UsageError("--db \(dbPath): no such file", fix: "pass the file 'pushlab collector --db' wrote")
        }
        let gatewayPath = try args[gatewayDB]
        if let gatewayPath, !FileManager.default.fileExists(atPath: gatewayPath) {
            throw UsageError("--gateway-db \(gatewayPath): no such file", fix: "pass the file 'pushlab serve' recorded pushes in")
        }
        let threshold = try args[recoveryThreshold]
        let limit = try args[Self.limit]
        let report: MetricsReport
        do {
            let store = try MetricStore(path: dbPath)
            report = try MetricsReport.load(store: store, gatewayDatabasePath: gatewayPath,
                                            recoveryThresholdSeconds: threshold.seconds)
        } catch let error as GatewayRecordsError {
            throw UsageError("--gateway-db: \(error)")
        } catch {
            throw UsageError("--db \(dbPath): cannot read the metrics: \(error)", fix: "pass a file written by 'pushlab collector'")
        }
        if args[json] {
            // Recipients are device tokens: shortened, as in the tables (issue 11, secrets).
            var shown = report
            for i in shown.deliveries.indices { shown.deliveries[i].recipient = shown.deliveries[i].recipient.map { shortToken($0) } }
            emit(try renderJSON(shown))
        } else {
            print(report.text(deliveryLimit: limit == 0 ? nil : limit), terminator: "")
        }
        return ExitStatus.success
    }
}
