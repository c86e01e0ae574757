import XCTest
import PushAuth
import PushCore
import PushHTTP
@testable import PushSend
import TestSupport

/// docs/specs/apns.md "Response" + "Retry policy": each answer mapped to the typed result and retried
/// (or not) as the spec says.
final class APNsResponseMappingTests: XCTestCase {
    let push = try! PreparedAPNsPush(payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8), options: APNsPushOptions(topic: "io.x"))

    func send(_ transport: ScriptedTransport, sleeper: RecordingSleeper = RecordingSleeper(),
              credential: any APNsCredential = FixedCredential("jwt")) async -> APNsSendResult {
        let client = APNsClient(endpoint: .sandbox(), transport: transport, credential: credential,
                                retry: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10)), sleeper: sleeper)
        return await client.send(push, to: TestTokens.apns)
    }

    func testEveryReasonIsMappedAndOnlyTransientOnesRetried() async {
        for reason in APNsReason.allKnown {
            let status = reason.status!
            let t = ScriptedTransport { _, _ in
                .init(status: status, body: APNsErrorBody(reason: reason, timestamp: status == 410 ? 1_700_000_000_000 : nil).json)
            }
            let result = await send(t)
            guard case .rejected(let rejection) = result.outcome else { XCTFail("\(reason): \(result.outcome)"); continue }
            XCTAssertEqual(rejection.reason, reason)
            XCTAssertEqual(rejection.status, status)
            XCTAssertEqual(result.report.reason, reason.rawValue)
            if status == 410 { XCTAssertEqual(result.report.timestamp, 1_700_000_000_000) }
            switch reason.retryability {
            case .never: XCTAssertEqual(t.requests.count, 1, "\(reason) must not be retried")
            case .withBackoff, .afterDelay: XCTAssertEqual(t.requests.count, 3, "\(reason) is retried")
            // FixedCredential cannot renew, so the retry stops after the first answer.
            case .renewCredentialOnce: XCTAssertEqual(t.requests.count, 1, "\(reason)")
            }
            XCTAssertEqual(result.report.prune, reason.prunesToken)
        }
    }

    func testUnknownReasonSurfacesVerbatim() async {
        let t = ScriptedTransport { _, _ in .init(status: 400, body: Array(#"{"reason":"FancyNewReason"}"#.utf8)) }
        let result = await send(t)
        XCTAssertEqual(result.report.reason, "FancyNewReason")
        XCTAssertEqual(t.requests.count, 1)
    }

    func testServerErrorThenSuccessIsRetriedWithTheSameApnsID() async {
        let t = ScriptedTransport { req, n in
            n == 1 ? .init(status: 503, body: APNsErrorBody(reason: .serviceUnavailable).json)
                   : .init(status: 200, headers: ["apns-id": req.headers["apns-id"]!, "apns-unique-id": "u-1"])
        }
        let result = await send(t)
        guard case .accepted(let a) = result.outcome else { return XCTFail("\(result.outcome)") }
        XCTAssertEqual(result.attempts, 2)
        XCTAssertEqual(a.uniqueID, "u-1")
        XCTAssertEqual(Set(t.requests.map { $0.headers["apns-id"]! }).count, 1)
    }

    func testRetryAfterIsHonoured() async {
        let sleeper = RecordingSleeper()
        let t = ScriptedTransport { _, n in
            n == 1 ? .init(status: 429, headers: ["retry-after": "7"], body: APNsErrorBody(reason: .tooManyRequests).json)
                   : .init(status: 200)
        }
        let result = await send(t, sleeper: sleeper)
        XCTAssertTrue(result.isAccepted)
        XCTAssertEqual(sleeper.delays, [.seconds(7)])
    }

    func testConnectionFailureIsRetriedAndTLSFailureIsNot() async {
        let refused = ScriptedTransport { _, n in
            if n < 3 { throw HTTPClientError.connectFailed("connection refused") }
            return .init(status: 200)
        }
        let r1 = await send(refused)
        XCTAssertTrue(r1.isAccepted)
        XCTAssertEqual(r1.attempts, 3)
        let tls = ScriptedTransport { _, _ in throw HTTPClientError.tlsFailed("unknown CA") }
        let r2 = await send(tls)
        XCTAssertEqual(tls.requests.count, 1)
        XCTAssertEqual(r2.report.outcome, .failed)
        XCTAssertEqual(r2.report.reason, "TLSFailed")
    }

    func testExpiredProviderTokenIsReMintedOnceAndRetried() async {
        let credential = RenewingCredential()
        let t = ScriptedTransport { req, _ in
            req.headers["authorization"] == "bearer token-1"
                ? .init(status: 403, body: APNsErrorBody(reason: .expiredProviderToken).json) : .init(status: 200)
        }
        let result = await send(t, credential: credential)
        XCTAssertTrue(result.isAccepted)
        XCTAssertEqual(credential.renewals, ["bearer token-1"])
        XCTAssertEqual(t.requests.map { $0.headers["authorization"]! }, ["bearer token-1", "bearer token-2"])
    }
}

/// A credential that hands out token-1, then token-2 after a renewal.
final class RenewingCredential: APNsCredential, @unchecked Sendable {
    private let lock = NSLock()
    private var generation = 1  // protected by `lock`
    private var rejected: [String] = []  // protected by `lock`
    var renewals: [String] { lock.withLock { rejected } }
    func authorization() async throws -> String { lock.withLock { "bearer token-\(generation)" } }
    func renew(afterRejecting r: String) async -> Bool { lock.withLock { rejected.append(r); generation += 1 }; return true }
}
