import XCTest
import PushAuth
import PushCore
import PushHTTP
import TestSupport
@testable import PushSend

/// Bulk sends over the real transport: GOAWAY mid-run, history, prune file, FCM bulk.
final class BulkOverHTTP2Tests: XCTestCase {
    var dir: URL!
    override func setUp() { dir = Fixtures.temporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    func tokensFile(_ count: Int, token: (Int) -> String = TestTokens.apns) throws -> String {
        let path = dir.appendingPathComponent("tokens.txt").path
        var text = ""
        text.reserveCapacity(count * 66)
        for i in 0..<count { text += token(i) + "\n" }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func apnsClient(_ server: LocalPushServer, _ http: HTTPClient) throws -> APNsClient {
        let key = try APNsAuthKey.load(path: Fixtures.apnsKey, teamID: Fixtures.apnsTeamID)
        return APNsClient(endpoint: try .custom(server.url), transport: http, credential: ProviderTokenCache(key: key),
                          retry: RetryPolicy(maxAttempts: 5, baseDelay: .milliseconds(10)))
    }

    /// An FCM client for `server` (OAuth through its /token) and a one-title message.
    func fcmClientAndMessage(_ server: LocalPushServer, _ http: HTTPClient, maxAttempts: Int) throws -> (FCMClient, PreparedFCMMessage) {
        let account = try ServiceAccount.load(path: try server.serviceAccountFile(in: dir))
        let client = FCMClient(baseURL: server.url, projectID: account.projectID, transport: http,
                               credential: OAuthTokenSource(account: account, transport: http),
                               retry: RetryPolicy(maxAttempts: maxAttempts, baseDelay: .milliseconds(10)))
        let message = try PreparedFCMMessage(document: try JSONDocument.parse(Array(#"{"message":{"notification":{"title":"t"}}}"#.utf8)),
                                             validateOnly: false)
        return (client, message)
    }

    /// docs/specs/apns.md: streams caught by GOAWAY are retried on a new connection — none lost, none
    /// sent twice after an accepted answer. The server counts every accepted apns-id.
    func testGoAwayInTheMiddleOf10000PushesLosesAndDuplicatesNothing() async throws {
        let server = try LocalPushServer(goAwayEvery: 2_500)
        let http = try HTTPClient(configuration: HTTPClientConfiguration(caFile: Fixtures.caFile))
        let sender = try apnsClient(server, http)
        let push = try PreparedAPNsPush(payload: Array(#"{"aps":{"alert":"bulk"}}"#.utf8), options: APNsPushOptions(topic: "io.x"))
        let out = dir.appendingPathComponent("results.jsonl").path
        let summary = try await BulkSender(concurrency: 200).run(tokens: try TokenLineReader(path: try tokensFile(10_000)),
                                                                 sinks: [try ResultsJSONLWriter(path: out)]) { token, index in
            await sender.send(push, to: token, index: index).report
        }
        await http.shutdown()
        await server.stop()
        let counts = server.snapshot
        XCTAssertGreaterThanOrEqual(counts.goAways, 3, "the server must really have sent GOAWAY")
        XCTAssertEqual(summary.total, 10_000)
        XCTAssertEqual(summary.accepted, 10_000, "\(summary.reasons)")
        XCTAssertEqual(counts.accepted.count, 10_000, "every push accepted by the server once")
        XCTAssertEqual(counts.accepted.values.filter { $0 > 1 }.count, 0, "no push accepted twice")
        // Every result line names an apns-id the server accepted.
        let ids = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").map { line -> String in
            let obj = try! JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            return obj["apns_id"] as! String
        }
        XCTAssertEqual(Set(ids), Set(counts.accepted.keys))
    }

    func testBulkWritesHistoryRowsAndThePruneFile() async throws {
        let server = try LocalPushServer(apns: { request in
            let index = Int(request.pathParameters["token"]!.suffix(4), radix: 16)!
            if index % 10 == 3 { return .now(ServerResponse(status: 410, body: APNsErrorBody(reason: .unregistered, timestamp: 9).json)) }
            if index % 10 == 7 { return .now(ServerResponse(status: 400, body: APNsErrorBody(reason: .badDeviceToken).json)) }
            if index % 10 == 9 { return .now(ServerResponse(status: 400, body: APNsErrorBody(reason: .badTopic).json)) }
            return nil
        })
        let http = try HTTPClient(configuration: HTTPClientConfiguration(caFile: Fixtures.caFile))
        let client = try apnsClient(server, http)
        let push = try PreparedAPNsPush(payload: Array(#"{"aps":{"alert":"x"}}"#.utf8), options: APNsPushOptions(topic: "io.x"))
        let store = try SendHistoryStore(path: dir.appendingPathComponent("history.sqlite").path)
        let prunePath = dir.appendingPathComponent("prune.txt").path
        let summary = try await BulkSender(concurrency: 50).run(
            tokens: try TokenLineReader(path: try tokensFile(500)),
            sinks: [try PruneFileWriter(path: prunePath), HistoryRecorder(store: store, endpoint: server.url, batch: "t", batchSize: 64)]) { token, index in
            await client.send(push, to: token, index: index).report
        }
        await http.shutdown()
        await server.stop()
        XCTAssertEqual(summary.accepted, 350)
        XCTAssertEqual(summary.reasons, ["Unregistered": 50, "BadDeviceToken": 50, "BadTopic": 50])
        XCTAssertEqual(try store.count(), 500)
        XCTAssertEqual(try store.recent(limit: 1000, target: TestTokens.apns(3)).first?.reason, "Unregistered")
        let pruned = Set(try String(contentsOfFile: prunePath, encoding: .utf8).split(separator: "\n").map(String.init))
        let expected = Set((0..<500).filter { $0 % 10 == 3 || $0 % 10 == 7 }.map(TestTokens.apns))
        XCTAssertEqual(pruned, expected)
    }

    /// The FCM side of the same rule: messages caught by GOAWAY go out again on a new
    /// connection — every message accepted by the server exactly once, none lost, none doubled.
    func testFCMBulkWithGoAwayMidRunLosesAndDoublesNothing() async throws {
        let server = try LocalPushServer(goAwayEvery: 500)
        let http = try HTTPClient(configuration: HTTPClientConfiguration(caFile: Fixtures.caFile))
        let (client, message) = try fcmClientAndMessage(server, http, maxAttempts: 5)
        let out = dir.appendingPathComponent("results.jsonl").path
        let summary = try await BulkSender(concurrency: 100).run(tokens: try TokenLineReader(path: try tokensFile(2_000, token: TestTokens.fcm)),
                                                                 sinks: [try ResultsJSONLWriter(path: out)]) { token, index in
            await client.send(message, to: .token(token), index: index).report
        }
        await http.shutdown()
        await server.stop()
        let counts = server.snapshot
        XCTAssertGreaterThanOrEqual(counts.goAways, 3, "the server must really have sent GOAWAY")
        XCTAssertEqual(summary.total, 2_000)
        XCTAssertEqual(summary.accepted, 2_000, "\(summary.reasons)")
        XCTAssertEqual(Set(counts.accepted.keys), Set((0..<2_000).map(TestTokens.fcm)), "every message reached the server")
        XCTAssertEqual(counts.accepted.filter { $0.value > 1 }.map(\.key), [], "no message accepted twice")
        let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 2_000, "one result per token")
    }

    func testFCMBulkOf10000MessagesWithOAuth() async throws {
        let server = try LocalPushServer(fcm: { request in
            let body = String(decoding: request.body, as: UTF8.self)
            if body.contains("inst13:") { return .now(ServerResponse(status: 404, body: FCMError(.unregistered, message: "Requested entity was not found.").json)) }
            return nil
        })
        let http = try HTTPClient(configuration: HTTPClientConfiguration(caFile: Fixtures.caFile))
        let (client, message) = try fcmClientAndMessage(server, http, maxAttempts: 3)
        let prunePath = dir.appendingPathComponent("prune.txt").path
        let summary = try await BulkSender(concurrency: 200).run(tokens: try TokenLineReader(path: try tokensFile(10_000, token: TestTokens.fcm)),
                                                                 sinks: [try PruneFileWriter(path: prunePath)]) { token, index in
            await client.send(message, to: .token(token), index: index).report
        }
        await http.shutdown()
        await server.stop()
        XCTAssertEqual(summary.total, 10_000)
        XCTAssertEqual(summary.accepted, 9_999)
        XCTAssertEqual(summary.reasons["UNREGISTERED"], 1)
        XCTAssertEqual(server.snapshot.tokenExchanges, 1, "one OAuth exchange for the whole run")
        XCTAssertEqual(server.snapshot.accepted.count, 9_999)
        XCTAssertEqual(try String(contentsOfFile: prunePath, encoding: .utf8), TestTokens.fcm(13) + "\n")
    }
}
