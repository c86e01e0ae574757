import Foundation
import PushCore
import PushGateway
import PushHTTP
import PushRelay
import TestSupport
import XCTest

/// gorush's `/api/push` through the relay: the same answer shape, the requests gorush would
/// make, and the corrections (docs/relay.md "Migrating from gorush").
final class RelayGorushTests: XCTestCase {
    private var harness: RelayHarness!

    override func tearDown() async throws {
        await harness?.stop()
        harness = nil
    }

    private func waitForEmulator(tokens: Set<String>) async throws -> [PushGatewayRecordView] {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let records = try harness.gateway.records.recent(limit: 1000).filter { tokens.contains($0.token ?? "") }
            if Set(records.compactMap(\.token)) == tokens { return records.map(PushGatewayRecordView.init) }
            try await Task.sleep(for: .milliseconds(10))
        }
        XCTFail("the emulator did not get pushes for every token in time")
        return []
    }

    func testAnswerHasGorushShapeAndCountsTargets() async throws {
        harness = try await RelayHarness()
        let body = #"{"notifications": [{"tokens": ["\#(RelayHarness.goodTokens[0])", "\#(RelayHarness.goodTokens[1])"], "platform": 1, "message": "Hello", "title": "T"}]}"#
        let response = try await harness.request("POST", "/gorush/demo/api/push", body: body)
        XCTAssertEqual(response.status, 200, response.bodyText)
        XCTAssertEqual(response.headers["x-gorush-version"], "pushlab-relay")
        let answer = try harness.json(response)
        XCTAssertEqual(answer["counts"]?.numberValue?.intValue, 2)
        XCTAssertEqual(answer["success"]?.stringValue, "ok")
        XCTAssertEqual(answer["logs"]?.arrayValue?.count, 0)
        let records = try await waitForEmulator(tokens: Set(RelayHarness.goodTokens.prefix(2)))
        let payload = try JSONDocument.parse(Array(records[0].payload.utf8)).root
        XCTAssertEqual(payload["aps"]?["alert"]?["title"]?.stringValue, "T")
        XCTAssertEqual(payload["aps"]?["alert"]?["body"]?.stringValue, "Hello")
        XCTAssertEqual(records[0].pushType, "alert")
    }

    /// gorush sends a content-available-only push as `alert` with no topic; the relay sends
    /// `background`, priority 5, and the app's bundle id as topic (a .p8 key needs one).
    func testSilentPushGoesOutAsBackgroundWithTheBundleIDAsTopic() async throws {
        harness = try await RelayHarness()
        let token = RelayHarness.goodTokens[2]
        let body = #"{"notifications": [{"tokens": ["\#(token)"], "platform": 1, "content_available": true, "data": {"sync": "inbox"}}]}"#
        let response = try await harness.request("POST", "/gorush/demo/api/push", body: body)
        XCTAssertEqual(response.status, 200, response.bodyText)
        let record = try await waitForEmulator(tokens: [token])[0]
        XCTAssertEqual(record.status, 200)
        XCTAssertEqual(record.pushType, "background")
        XCTAssertEqual(record.topic, Fixtures.bundleID)
        XCTAssertEqual(record.headers["apns-priority"], "5")
        let payload = try JSONDocument.parse(Array(record.payload.utf8)).root
        XCTAssertEqual(payload["aps"]?["content-available"]?.numberValue?.intValue, 1)
        XCTAssertEqual(payload["sync"]?.stringValue, "inbox")
    }

    func testSyncModeListsFailedTokens() async throws {
        harness = try await RelayHarness()
        let body = #"{"notifications": [{"notif_id": "n1", "tokens": ["\#(RelayHarness.goodTokens[0])", "\#(RelayHarness.deadToken)"], "platform": 1, "message": "x"}]}"#
        let response = try await harness.request("POST", "/gorush/demo/api/push?sync=true", body: body)
        XCTAssertEqual(response.status, 200, response.bodyText)
        let logs = try harness.json(response)["logs"]?.arrayValue?.elements ?? []
        XCTAssertEqual(logs.count, 1, response.bodyText)
        XCTAssertEqual(logs.first?["type"]?.stringValue, "failed-push")
        XCTAssertEqual(logs.first?["token"]?.stringValue, RelayHarness.deadToken)
        XCTAssertEqual(logs.first?["error"]?.stringValue, "Unregistered")
        XCTAssertEqual(logs.first?["notif_id"]?.stringValue, "n1")
    }

    /// `production` and `development` in one request: each notification keeps its own host.
    func testProductionAndDevelopmentNotificationsKeepTheirEnvironments() async throws {
        harness = try await RelayHarness()
        let body = """
            {"notifications": [
              {"tokens": ["\(RelayHarness.goodTokens[0])"], "platform": 1, "message": "p", "production": true},
              {"tokens": ["\(RelayHarness.goodTokens[1])"], "platform": 1, "message": "d", "development": true}]}
            """
        let answer = try harness.json(try await harness.request("POST", "/gorush/demo/api/push", body: body))
        let ids = answer["push_ids"]?.arrayValue?.elements.compactMap(\.stringValue) ?? []
        XCTAssertEqual(ids.count, 2)
        let first = try await harness.finished(ids[0])
        let second = try await harness.finished(ids[1])
        XCTAssertEqual(first["results"]?.arrayValue?.first?["environment"]?.stringValue, "production")
        XCTAssertEqual(second["results"]?.arrayValue?.first?["environment"]?.stringValue, "sandbox")
    }

    func testAndroidNotificationBecomesAnFCMMessage() async throws {
        harness = try await RelayHarness()
        let body = #"{"notifications": [{"tokens": ["\#(RelayHarness.fcmToken)"], "platform": 2, "title": "T", "message": "M", "data": {"n": 1}, "priority": "high"}]}"#
        let answer = try harness.json(try await harness.request("POST", "/gorush/demo/api/push", body: body))
        let id = answer["push_ids"]?.arrayValue?.first?.stringValue ?? ""
        let status = try await harness.finished(id)
        XCTAssertEqual(status["sent"]?.numberValue?.intValue, 1, "\(status)")
        let record = try harness.gateway.records.recent(limit: 100).first { $0.service == .fcm }
        let message = try JSONDocument.parse(Array((record?.payload ?? "{}").utf8)).root
        let m = message["message"] ?? message
        XCTAssertEqual(m["notification"]?["body"]?.stringValue, "M", "\(message)")
        XCTAssertEqual(m["data"]?["n"]?.stringValue, "1", "FCM data values are strings")
        XCTAssertEqual(m["android"]?["priority"]?.stringValue, "high")
    }

    func testKeyInThePathWorksAndStatsCount() async throws {
        harness = try await RelayHarness()
        let body = #"{"notifications": [{"tokens": ["\#(RelayHarness.goodTokens[3])"], "platform": 1, "message": "x"}]}"#
        let viaPath = try await harness.request("POST", "/gorush/demo/key/\(harness.key)/api/push", body: body, key: "")
        XCTAssertEqual(viaPath.status, 200, viaPath.bodyText)
        let noKey = try await harness.request("POST", "/gorush/demo/api/push", body: body, key: "")
        XCTAssertEqual(noKey.status, 401)
        let id = try harness.json(viaPath)["push_ids"]?.arrayValue?.first?.stringValue ?? ""
        _ = try await harness.finished(id)
        let stats = try harness.json(try await harness.request("GET", "/gorush/demo/api/stat/app"))
        XCTAssertEqual(stats["ios"]?["push_success"]?.numberValue?.intValue, 1, "\(stats)")
        XCTAssertEqual(stats["total_count"]?.numberValue?.intValue, 1)
    }
}

/// The fields of an emulator record the tests look at.
struct PushGatewayRecordView {
    var token: String?
    var status: Int
    var pushType: String?
    var topic: String?
    var headers: [String: String]
    var payload: String
    init(_ r: PushGateway.PushRecord) {
        token = r.token
        status = r.status
        pushType = r.pushType
        topic = r.topic
        headers = r.headers
        payload = r.payload
    }
}
