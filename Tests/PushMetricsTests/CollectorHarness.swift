import Foundation
import PushCore
import PushHTTP
import PushMetrics
import TestSupport

/// A collector on a real SQLite file in a temporary directory, driven through its `Router`
/// exactly as the server would call it (the server-level tests use the real HTTPServer).
final class CollectorHarness: @unchecked Sendable {
    static let cdpKey = "cdp-test-key-1"
    static let siteID = "site-42"
    static let legacyAPIKey = "legacy-secret"

    let directory: URL
    let databasePath: String
    let clock = ManualTimeSource()
    let store: MetricStore
    let collector: MetricsCollector
    let router: Router
    private let connection = ConnectionContext(id: 7, isTLS: false, remoteAddress: "127.0.0.1:50000", control: nil)

    init(faultPlan: FaultPlan = .none, acknowledgement: CollectorAcknowledgement = .queued,
         credentials: CollectorCredentials = CollectorCredentials(cdpAPIKeys: [CollectorHarness.cdpKey],
                                                                  legacyKeys: [CollectorHarness.siteID: CollectorHarness.legacyAPIKey]),
         databasePath: String? = nil) throws {
        directory = Fixtures.temporaryDirectory("metrics")
        self.databasePath = databasePath ?? directory.appendingPathComponent("metrics.sqlite").path
        store = try MetricStore(path: self.databasePath)
        collector = try MetricsCollector(configuration: CollectorConfiguration(credentials: credentials, faultPlan: faultPlan,
                                                                               acknowledgement: acknowledgement),
                                         store: store, timeSource: clock)
        router = collector.makeRouter()
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    static var cdpAuthorization: String { CollectorCredentials.basicHeader(user: cdpKey) }
    static var legacyAuthorization: String { CollectorCredentials.basicHeader(user: siteID, password: legacyAPIKey) }

    enum Outcome: Equatable {
        case response(status: Int, headers: HTTPHeaders, body: String)
        case reset
    }

    /// Routes one request and resolves the handler's reply (awaiting `.later` and `.callback`).
    func post(_ path: String, _ body: String, authorization: String?, userAgent: String? = nil) async throws -> Outcome {
        var headers = HTTPHeaders()
        headers.add("content-type", "application/json; charset=utf-8")
        if let authorization { headers.add("authorization", authorization) }
        if let userAgent { headers.add("user-agent", userAgent) }
        let request = ServerRequest(method: "POST", path: path, headers: headers, body: Array(body.utf8), connection: connection)
        guard case .found(let handler, _) = router.match(method: "POST", path: path) else {
            throw TestEnvironmentError("the collector has no POST route \(path)")  // fails this test, not the whole run
        }
        guard let r = try await handler(request).response() else { return .reset }
        return .response(status: r.status, headers: r.headers, body: String(decoding: r.body, as: UTF8.self))
    }

    /// Status and parsed JSON body of a response outcome.
    func send(_ path: String, _ body: String, authorization: String?, userAgent: String? = nil) async throws -> (Int, [String: Any]) {
        guard case .response(let status, _, let text) = try await post(path, body, authorization: authorization, userAgent: userAgent) else {
            throw TestEnvironmentError("POST \(path) reset the stream instead of answering")
        }
        let json = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
        return (status, json)
    }

    /// Rows of the real SQLite file, read through a second connection after a flush.
    func storedRows(_ sql: String) throws -> [[String]] {
        collector.flush()
        let result = try ProcessRunner.run("/usr/bin/sqlite3", ["-separator", "|", databasePath, sql])
        guard result.status == 0 else { throw NSError(domain: "sqlite3", code: Int(result.status), userInfo: [NSLocalizedDescriptionKey: result.stderr]) }
        return result.stdout.split(separator: "\n").map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
    }
}
