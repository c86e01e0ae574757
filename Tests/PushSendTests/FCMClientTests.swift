import XCTest
import PushAuth
import PushCore
import PushHTTP
@testable import PushSend
import TestSupport

/// docs/specs/fcm.md "Send", "Message essentials", "Errors" against an in-memory transport.
final class FCMClientTests: XCTestCase {
    func message(_ text: String, validateOnly: Bool = false) throws -> PreparedFCMMessage {
        try PreparedFCMMessage(document: try JSONDocument.parse(Array(text.utf8)), validateOnly: validateOnly)
    }

    func client(_ t: ScriptedTransport, credential: any FCMAccessTokenProvider = FixedCredential("ya29.secret")) -> FCMClient {
        FCMClient(baseURL: "https://localhost:9443/", projectID: "pushlab-dev", transport: t, credential: credential,
                  retry: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(5)), sleeper: RecordingSleeper())
    }

    func testMessagesSendRequestCarriesTargetBearerAndValidateOnly() async throws {
        let t = ScriptedTransport { _, _ in .init(status: 200, body: Array(#"{"name":"projects/pushlab-dev/messages/0:1"}"#.utf8)) }
        let m = try message(#"{"message":{"notification":{"title":"Hi","body":"there"},"data":{"k":"v"}}}"#, validateOnly: true)
        let result = await client(t).send(m, to: .token(TestTokens.fcm))
        guard case .accepted(let name) = result.outcome else { return XCTFail("\(result.outcome)") }
        XCTAssertEqual(name, "projects/pushlab-dev/messages/0:1")
        let r = try XCTUnwrap(t.requests.first)
        XCTAssertEqual(r.url, "https://localhost:9443/v1/projects/pushlab-dev/messages:send")
        XCTAssertEqual(r.headers["authorization"], "Bearer ya29.secret")
        let body = try JSONDocument.parse(r.body).root
        XCTAssertEqual(body["validate_only"], .bool(true))
        XCTAssertEqual(body["message"]?["token"]?.stringValue, TestTokens.fcm)
        XCTAssertEqual(body["message"]?["notification"]?["title"]?.stringValue, "Hi")
        XCTAssertEqual(body["message"]?["data"]?["k"]?.stringValue, "v")
    }

    func testBareAPNsPayloadIsWrappedUnderMessageApnsPayload() throws {
        let m = try message(#"{"aps":{"alert":{"title":"t"},"mutable-content":1},"CIO":{"push":{"link":"x://y"}}}"#)
        XCTAssertTrue(m.wrappedAPNsPayload)
        let body = try JSONDocument.parse(m.body(for: .topic("news"))).root
        XCTAssertEqual(body["message"]?["topic"]?.stringValue, "news")
        XCTAssertEqual(body["message"]?["apns"]?["payload"]?["aps"]?["mutable-content"], 1)
        XCTAssertEqual(body["message"]?["apns"]?["payload"]?["CIO"]?["push"]?["link"]?.stringValue, "x://y")
    }

    func testTargetFromTheFileIsKeptAndSeveralTargetsAreRefused() throws {
        XCTAssertEqual(try message(#"{"message":{"condition":"'a' in topics","data":{}}}"#).fileTarget, .condition("'a' in topics"))
        XCTAssertThrowsError(try message(#"{"token":"a","topic":"b"}"#)) { XCTAssertEqual($0 as? FCMMessageError, .severalTargets) }
    }

    func testAPNsTokenGivenToFCMIsRefusedBeforeSending() async throws {
        let t = ScriptedTransport { _, _ in .init(status: 200) }
        let result = await client(t).send(try message(#"{"data":{"a":"b"}}"#), to: .token(TestTokens.apns))
        XCTAssertTrue(t.requests.isEmpty)
        guard case .notSent(let why, _) = result.outcome else { return XCTFail("\(result.outcome)") }
        XCTAssertTrue(why.contains("APNs device token"), why)
        XCTAssertNotNil(FCMTarget.topic("bad topic!").problem)
        XCTAssertNil(FCMTarget.topic("/topics/news").problem)
    }

    func testEveryErrorCodeIsMappedAndOnlyTransientOnesRetried() async throws {
        let m = try message(#"{"data":{"a":"b"}}"#)
        for code in FCMErrorCode.allKnown {
            let error = FCMError(code, message: "m", fieldViolations: code == .invalidArgument ? [FCMFieldViolation(field: "message.token", description: "bad")] : [])
            let t = ScriptedTransport { _, _ in .init(status: error.httpStatus, body: error.json) }
            let result = await client(t).send(m, to: .token(TestTokens.fcm))
            guard case .rejected(let got) = result.outcome else { XCTFail("\(code): \(result.outcome)"); continue }
            XCTAssertEqual(got, error)
            XCTAssertEqual(result.report.reason, code.rawValue)
            XCTAssertEqual(t.requests.count, code.retryability == .never ? 1 : 3, "\(code)")
            XCTAssertEqual(result.report.prune, code == .unregistered)
        }
    }

    func testUnavailableHonoursRetryAfterThenSucceeds() async throws {
        let sleeper = RecordingSleeper()
        let t = ScriptedTransport { _, n in
            n == 1 ? .init(status: 503, headers: ["retry-after": "2"], body: FCMError(.unavailable, message: "busy").json)
                   : .init(status: 200, body: Array(#"{"name":"projects/p/messages/1"}"#.utf8))
        }
        var c = client(t)
        c.sleeper = sleeper
        let result = await c.send(try message(#"{"data":{"a":"b"}}"#), to: .token(TestTokens.fcm))
        XCTAssertTrue(result.isAccepted)
        XCTAssertEqual(result.attempts, 2)
        XCTAssertEqual(sleeper.delays, [.seconds(2)])
    }

    func testExpiredAccessTokenIsRenewedOnce() async throws {
        let credential = RenewingAccessToken()
        let t = ScriptedTransport { req, _ in
            req.headers["authorization"] == "Bearer at-1"
                ? .init(status: 401, body: Array(#"{"error":{"code":401,"message":"Request had invalid authentication credentials.","status":"UNAUTHENTICATED"}}"#.utf8))
                : .init(status: 200, body: Array(#"{"name":"projects/p/messages/2"}"#.utf8))
        }
        let result = await client(t, credential: credential).send(try message(#"{"data":{"a":"b"}}"#), to: .token(TestTokens.fcm))
        XCTAssertTrue(result.isAccepted)
        XCTAssertEqual(t.requests.count, 2)
    }
}

final class RenewingAccessToken: FCMAccessTokenProvider, @unchecked Sendable {
    private let lock = NSLock()
    private var generation = 1  // protected by `lock`
    func bearerToken() async throws -> String { lock.withLock { "at-\(generation)" } }
    func renew(afterRejecting r: String) async -> Bool { lock.withLock { generation += 1 }; return true }
}
