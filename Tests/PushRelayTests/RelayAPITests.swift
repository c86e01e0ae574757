import Foundation
import PushAuth
import PushCore
import PushHTTP
import PushRelay
import TestSupport
import XCTest

/// The native API over real HTTP/2 (h2c) to a relay sending to the in-process emulator.
final class RelayAPITests: XCTestCase {
    private var harness: RelayHarness!

    override func tearDown() async throws {
        await harness?.stop()
        harness = nil
    }

    func testPushIsDeliveredAndItsResultsAreReadable() async throws {
        harness = try await RelayHarness()
        let tokens = Array(RelayHarness.goodTokens.prefix(2))
        let id = try await harness.push(RelayHarness.apnsBody(tokens: tokens))
        XCTAssertTrue(id.hasPrefix("p_"))
        let status = try await harness.finished(id)
        XCTAssertEqual(status["finished"]?.boolValue, true, "\(status)")
        XCTAssertEqual(status["sent"]?.numberValue?.intValue, 2)
        let results = status["results"]?.arrayValue?.elements ?? []
        XCTAssertEqual(results.map { $0["apns"]?.stringValue }, tokens)
        XCTAssertTrue(results.allSatisfy { $0["status"]?.stringValue == "sent" && $0["apns_id"]?.stringValue?.count == 36 })
        XCTAssertEqual(try harness.acceptedByEmulator()[tokens[0]], 1)

        let log = try await harness.request("GET", "/v1/apps/demo/deliveries?token=\(tokens[1])")
        let deliveries = try harness.json(log)["deliveries"]?.arrayValue?.elements ?? []
        XCTAssertEqual(deliveries.count, 1)
        XCTAssertEqual(deliveries.first?["push_id"]?.stringValue, id)
    }

    /// A result is written while another send of its push still waits for its answer: the
    /// recorder waits for a batch's worth of answers (here 4) with no timer of its own, and the
    /// workers' tick writes the one answer that came when no other will come soon. The emulator
    /// holds the slow target's answer until the test lets it go (a `FaultHold`), so "still
    /// waiting" is a fact, not a race against a latency; without the tick the first result
    /// would wait for the second answer, and the poll below would end at its deadline.
    func testAResultIsRecordedWhileAnotherSendOfItsPushHangs() async throws {
        let (fast, slow) = (RelayHarness.goodTokens[0], RelayHarness.goodTokens[1])
        let gate = Gate()
        let hold = FaultRule(route: "/3/device/\(slow)", hold: FaultHold { await gate.pass() })
        harness = try await RelayHarness(extra: #""workers": {"concurrency": 16},"#, faults: FaultPlan(rules: [hold]))
        defer { gate.open() }
        let id = try await harness.push(RelayHarness.apnsBody(tokens: [fast, slow]))
        let slowIsHeld = await Poll.until(timeout: 60) { gate.arrived == 1 }
        XCTAssertTrue(slowIsHeld, "the slow target's request reached the emulator")
        var phases: [String] = []
        let fastIsRecorded = try await Poll.until(timeout: 60, interval: .milliseconds(20)) {
            let status = try harness.json(try await harness.request("GET", "/v1/pushes/\(id)"))
            phases = (status["results"]?.arrayValue?.elements ?? []).map { $0["status"]?.stringValue ?? "" }
            return phases.first == "sent"
        }
        XCTAssertTrue(fastIsRecorded, "the fast target's result is written while the slow one is held: \(phases)")
        XCTAssertEqual(phases, ["sent", "claimed"], "the fast target's result, while the slow one is still being sent")
        XCTAssertEqual(gate.arrived, 1, "the slow target was sent once and is still held")
        gate.open()
        let status = try await harness.finished(id)
        XCTAssertEqual(status["sent"]?.numberValue?.intValue, 2, "\(status)")
    }

    func testFCMTokenAndAPNsTokenInOnePush() async throws {
        harness = try await RelayHarness()
        let body = """
            {"apns": {"payload": {"aps": {"alert": {"title": "Hi"}}}},
             "fcm": {"message": {"notification": {"title": "Hi"}}},
             "targets": [{"apns": "\(RelayHarness.goodTokens[0])"}, {"fcm": "\(RelayHarness.fcmToken)"}]}
            """
        let status = try await harness.finished(try await harness.push(body))
        XCTAssertEqual(status["sent"]?.numberValue?.intValue, 2, "\(status)")
        let fcm = status["results"]?.arrayValue?.elements.last
        XCTAssertEqual(fcm?["message_name"]?.stringValue?.hasPrefix("projects/\(Fixtures.fcmProjectID)/messages/"), true, "\(String(describing: fcm))")
    }

    /// Every bad request gets a 4xx whose JSON names the field, and queues nothing.
    func testBadInputIsRefusedNamingTheFieldAndNothingIsQueued() async throws {
        harness = try await RelayHarness(extra: #""limits": {"max_targets": 3},"#)
        let token = RelayHarness.goodTokens[0]
        let cases: [(String, String, Int, String?)] = [
            ("/v1/apps/demo/pushes", "{not json", 400, nil),
            ("/v1/apps/demo/pushes", "[]", 400, "body"),
            ("/v1/apps/demo/pushes", #"{"apns": {"payload": {"aps": {"alert": "x"}}}}"#, 400, "/targets"),
            ("/v1/apps/demo/pushes", RelayHarness.apnsBody(tokens: Array(repeating: token, count: 4)), 400, "/targets"),
            ("/v1/apps/demo/pushes", RelayHarness.apnsBody(tokens: [token, "nothex"]), 400, "/apns_tokens/1"),
            ("/v1/apps/demo/pushes", #"{"apns": {"payload": {"aps": {"alert": {"title": 5}}}}, "apns_tokens": ["\#(token)"]}"#, 400, "/apns/payload"),
            ("/v1/apps/demo/pushes", #"{"apns": {"payload": {"aps": {}}, "priority": 11}, "apns_tokens": ["\#(token)"]}"#, 400, "/apns/priority"),
            ("/v1/apps/demo/pushes", #"{"apns_tokens": ["\#(token)"]}"#, 400, "/apns"),
            ("/v1/apps/demo/pushes", #"{"apns": {"payload": {"aps": {"alert": "x"}}}, "apns_tokens": ["\#(token)"], "tokenz": []}"#, 400, "/tokenz"),
            ("/v1/apps/demo/pushes", #"{"targets": [{"apns": "\#(token)", "fcm": "x"}], "apns": {"payload": {"aps": {}}}}"#, 400, "/targets/0"),
            ("/v1/apps/nope/pushes", RelayHarness.apnsBody(tokens: [token]), 403, "path app"),
            ("/gorush/demo/api/push", #"{"notifications": [{"tokens": [], "platform": 1, "message": "x"}]}"#, 400, "/notifications/0/tokens"),
            ("/gorush/demo/api/push", #"{"notifications": [{"tokens": ["\#(token)"], "platform": 7}]}"#, 400, "/notifications/0/platform"),
            ("/gorush/demo/api/push", #"{"notifications": []}"#, 400, "/notifications"),
            ("/gorush/demo/api/push", #"{"notifications": [{"tokens": ["\#(token)"], "platform": 1, "mutable_content": 1}]}"#, 400, "/notifications/0/mutable_content"),
            ("/gorush/demo/api/push", #"{"notifications": [{"tokens": ["\#(token)", "\#(token)", "\#(token)", "\#(token)"], "platform": 1, "message": "x"}]}"#, 400, "/notifications/0/tokens"),
        ]
        for (path, body, status, field) in cases {
            let response = try await harness.request("POST", path, body: body)
            XCTAssertEqual(response.status, status, "\(path) \(body): \(response.bodyText)")
            let answer = try harness.json(response)
            if let field { XCTAssertEqual(answer["field"]?.stringValue, field, "\(body): \(response.bodyText)") }
            XCTAssertNotNil(answer["fix"]?.stringValue, response.bodyText)
        }
        let payload = try await harness.request("POST", "/v1/apps/demo/pushes",
                                                body: #"{"apns": {"payload": {"aps": {"alert": {"title": 5}}}}, "apns_tokens": ["\#(token)"]}"#)
        let finding = try harness.json(payload)["findings"]?.arrayValue?.first
        XCTAssertEqual(finding?["pointer"]?.stringValue, "/aps/alert/title", "the same pointer as pushlab validate")
        let unauthenticated = try await harness.request("POST", "/v1/apps/demo/pushes", body: RelayHarness.apnsBody(tokens: [token]), key: "")
        XCTAssertEqual(unauthenticated.status, 401)
        let depth = try await harness.relay.queue.depth()
        XCTAssertEqual(depth, QueueDepth(waiting: 0, claimed: 0, finished: 0), "nothing may be queued by a refused request")
    }

    func testIdempotencyKeyReplaysTheFirstAnswerAndSendsOnce() async throws {
        harness = try await RelayHarness()
        let body = RelayHarness.apnsBody(tokens: [RelayHarness.goodTokens[0]])
        let first = try await harness.request("POST", "/v1/apps/demo/pushes", body: body, headers: ["idempotency-key": "order-42"])
        let again = try await harness.request("POST", "/v1/apps/demo/pushes", body: body, headers: ["idempotency-key": "order-42"])
        XCTAssertEqual(first.status, 202)
        XCTAssertEqual(again.status, 202)
        XCTAssertEqual(first.bodyText, again.bodyText, "a retried request gets the first answer")
        XCTAssertEqual(again.headers["idempotent-replayed"], "true")
        let id = try harness.json(first)["id"]?.stringValue ?? ""
        _ = try await harness.finished(id)
        XCTAssertEqual(try harness.acceptedByEmulator()[RelayHarness.goodTokens[0]], 1, "sent once")

        let other = try await harness.request("POST", "/v1/apps/demo/pushes", body: RelayHarness.apnsBody(tokens: [RelayHarness.goodTokens[1]]),
                                              headers: ["idempotency-key": "order-42"])
        XCTAssertEqual(other.status, 422)
        XCTAssertEqual(try harness.json(other)["field"]?.stringValue, "header Idempotency-Key")
    }

    func testUnregisteredTokenEndsInTheInvalidTokenFeed() async throws {
        harness = try await RelayHarness()
        let status = try await harness.finished(try await harness.push(RelayHarness.apnsBody(tokens: [RelayHarness.deadToken])))
        let result = status["results"]?.arrayValue?.first
        XCTAssertEqual(result?["status"]?.stringValue, "failed", "\(status)")
        XCTAssertEqual(result?["reason"]?.stringValue, "Unregistered")
        XCTAssertEqual(result?["attempts"]?.numberValue?.intValue, 1, "Unregistered is never retried")
        let feed = try harness.json(try await harness.request("GET", "/v1/apps/demo/invalid-tokens"))
        XCTAssertEqual(feed["invalid_tokens"]?.arrayValue?.first?["apns"]?.stringValue, RelayHarness.deadToken)
        let later = try harness.json(try await harness.request("GET", "/v1/apps/demo/invalid-tokens?since=\(Int(Date().timeIntervalSince1970) + 60)"))
        XCTAssertEqual(later["invalid_tokens"]?.arrayValue?.count, 0)
    }

    func testKeysAreScopedToTheirAppAndRevocationIsImmediate() async throws {
        harness = try await RelayHarness()
        let other = try await harness.relay.keys.create(scope: .app("other"), label: nil)
        let body = RelayHarness.apnsBody(tokens: [RelayHarness.goodTokens[0]])
        let foreign = try await harness.request("POST", "/v1/apps/demo/pushes", body: body, key: other.key)
        XCTAssertEqual(foreign.status, 403)
        let id = try await harness.push(body)
        let peek = try await harness.request("GET", "/v1/pushes/\(id)", key: other.key)
        XCTAssertEqual(peek.status, 404, "another app's key must not see the push")
        let didRevoke = try await harness.relay.keys.revoke(id: other.info.id)
        XCTAssertTrue(didRevoke)
        let revoked = try await harness.request("POST", "/v1/apps/other/pushes", body: body, key: other.key)
        XCTAssertEqual(revoked.status, 401)
        let config = try await harness.request("GET", "/v1/admin/config")
        XCTAssertEqual(config.status, 403, "admin routes need an admin key")
    }

    func testConfigReadBackShowsPathsAndFingerprintsButNoKeyMaterial() async throws {
        harness = try await RelayHarness()
        let admin = try await harness.relay.keys.create(scope: .admin, label: nil).key
        let response = try await harness.request("GET", "/v1/admin/config", key: admin)
        XCTAssertEqual(response.status, 200)
        let text = response.bodyText
        let keyFile = try String(contentsOfFile: Fixtures.apnsKey, encoding: .utf8)
        let secretLine = keyFile.split(separator: "\n")[1]
        XCTAssertFalse(text.contains(secretLine), "the .p8 contents must never be served")
        XCTAssertFalse(text.contains("PRIVATE KEY"))
        XCTAssertTrue(text.contains(Digest.hex(Digest.sha256(Array(keyFile.utf8)))), "the key file's SHA-256 fingerprint")
        XCTAssertFalse(text.contains(harness.key))
    }

    /// APNs unreachable: targets stay unfinished (retried later), so a small queue fills and
    /// the next push gets 503 with Retry-After, and is not queued.
    func testFullQueueAnswers503WithRetryAfter() async throws {
        let closed = try ClosedPort()
        harness = try await RelayHarness(extra: #""queue": {"capacity": 2},"#, apnsURL: "https://127.0.0.1:\(closed.port)")
        _ = try await harness.push(RelayHarness.apnsBody(tokens: Array(RelayHarness.goodTokens.prefix(2))))
        let full = try await harness.request("POST", "/v1/apps/demo/pushes", body: RelayHarness.apnsBody(tokens: [RelayHarness.goodTokens[2]]))
        XCTAssertEqual(full.status, 503, full.bodyText)
        XCTAssertEqual(full.headers["retry-after"], "5")
        let gorush = try await harness.request("POST", "/gorush/demo/api/push",
                                               body: #"{"notifications": [{"tokens": ["\#(RelayHarness.goodTokens[2])"], "platform": 1, "message": "x"}]}"#)
        XCTAssertEqual(gorush.status, 503)
        let depth = try await harness.relay.queue.depth()
        XCTAssertEqual(depth.unfinished, 2)
    }

    func testMetricsCountAcceptedSentAndFailedByReason() async throws {
        harness = try await RelayHarness()
        _ = try await harness.finished(try await harness.push(RelayHarness.apnsBody(tokens: [RelayHarness.goodTokens[0], RelayHarness.deadToken])))
        let admin = try await harness.relay.keys.create(scope: .admin, label: "prometheus").key
        let text = try await harness.request("GET", "/metrics", key: admin).bodyText
        XCTAssertTrue(text.contains(#"pushlab_relay_accepted_targets_total{app="demo",platform="apns"} 2"#), text)
        XCTAssertTrue(text.contains(#"pushlab_relay_sent_total{app="demo",platform="apns"} 1"#), text)
        XCTAssertTrue(text.contains(#"pushlab_relay_failed_total{app="demo",platform="apns",reason="Unregistered"} 1"#), text)
        XCTAssertTrue(text.contains(#"pushlab_relay_send_latency_seconds_count{platform="apns"} 2"#), text)
        XCTAssertTrue(text.contains(#"pushlab_relay_queue_targets{state="finished"} 2"#), text)
    }

    /// The key is read with the one Bearer parser (RFC 6750): any case of the scheme, one or more
    /// spaces; another scheme, a tab, or a key with a space inside is not a Bearer credential.
    func testTheKeyIsReadAsABearerCredential() async throws {
        harness = try await RelayHarness()
        let key = harness.key
        for header in ["Bearer \(key)", "bearer \(key)", "BEARER   \(key)"] {
            let r = try await harness.request("GET", "/v1/apps/demo/deliveries?limit=1", key: "", headers: ["authorization": header])
            XCTAssertEqual(r.status, 200, "\(header.prefix(9)): \(r.bodyText)")
        }
        // (HTTP/2 refuses a field value ending in a space, so "Bearer " cannot be sent here: the
        // parser's own table has it.)
        for header in ["Basic \(key)", "Bearer\t\(key)", "Bearer \(key) x", "Bearer"] {
            let r = try await harness.request("GET", "/v1/apps/demo/deliveries?limit=1", key: "", headers: ["authorization": header])
            XCTAssertEqual(r.status, 401, r.bodyText)
            XCTAssertTrue(r.bodyText.contains("is not 'Bearer <key>'"), r.bodyText)
        }
    }

    /// By default /metrics wants an admin key as a bearer token (what Prometheus sends with
    /// bearer_token); an app key is refused, /healthz stays open.
    func testMetricsNeedTheAdminKeyByDefault() async throws {
        harness = try await RelayHarness()
        let admin = try await harness.relay.keys.create(scope: .admin, label: "prometheus").key
        let none = try await harness.request("GET", "/metrics", key: "")
        XCTAssertEqual(none.status, 401, none.bodyText)
        XCTAssertEqual(try harness.json(none)["field"]?.stringValue, "header Authorization", none.bodyText)
        let appKey = try await harness.request("GET", "/metrics")
        XCTAssertEqual(appKey.status, 403, appKey.bodyText)
        XCTAssertFalse(appKey.bodyText.contains("pushlab_relay_"), "no metrics for an app key")
        let scraped = try await harness.request("GET", "/metrics", key: admin)
        XCTAssertEqual(scraped.status, 200, scraped.bodyText)
        XCTAssertTrue(scraped.bodyText.contains("# TYPE pushlab_relay_queue_targets gauge"), scraped.bodyText)
        let health = try await harness.request("GET", "/healthz", key: "")
        XCTAssertEqual(health.status, 200)
        let config = try await harness.request("GET", "/v1/admin/config", key: admin)
        XCTAssertEqual(try harness.json(config)["metrics"]?["require_admin_key"]?.boolValue, true, config.bodyText)
    }

    /// `"metrics": {"require_admin_key": false}` opens /metrics to anyone who reaches the port.
    func testMetricsOpenOnlyWhenConfigured() async throws {
        harness = try await RelayHarness(extra: #""metrics": {"require_admin_key": false},"#)
        let open = try await harness.request("GET", "/metrics", key: "")
        XCTAssertEqual(open.status, 200, open.bodyText)
        XCTAssertTrue(open.bodyText.contains("# TYPE pushlab_relay_queue_targets gauge"), open.bodyText)
    }
}
