import XCTest
import PushCore
@testable import PushSend

/// Records the delays a retry would wait, without waiting.
final class RecordingSleeper: RetrySleeper, @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [Duration] = []  // protected by `lock`
    var delays: [Duration] { lock.withLock { recorded } }
    func sleep(for duration: Duration) async throws { lock.withLock { recorded.append(duration) } }
}

final class RetryPolicyTests: XCTestCase {
    func testBackoffDoublesWithBoundedJitter() {
        let policy = RetryPolicy(maxAttempts: 6, baseDelay: .seconds(1), maxDelay: .seconds(30), jitter: 0.5)
        var random = policy.random(forMessage: 7)
        for (attempt, base) in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0)] {
            let d = policy.delay(afterAttempt: attempt, retryAfter: nil, random: &random).inSeconds
            XCTAssertGreaterThanOrEqual(d, base)
            XCTAssertLessThanOrEqual(d, base * 1.5 + 0.001)
        }
        XCTAssertLessThanOrEqual(policy.delay(afterAttempt: 20, retryAfter: nil, random: &random).inSeconds, 45.001)
    }

    func testSameSeedAndMessageGiveTheSameJitter() {
        let policy = RetryPolicy()
        var a = policy.random(forMessage: 3), b = policy.random(forMessage: 3), c = policy.random(forMessage: 4)
        let da = policy.delay(afterAttempt: 1, retryAfter: nil, random: &a)
        XCTAssertEqual(da, policy.delay(afterAttempt: 1, retryAfter: nil, random: &b))
        XCTAssertNotEqual(da, policy.delay(afterAttempt: 1, retryAfter: nil, random: &c))
    }

    func testRetryAfterIsHonouredAndTooLongRetryAfterStops() {
        let policy = RetryPolicy(baseDelay: .milliseconds(10), maxRetryAfter: .seconds(60))
        var r = policy.random(forMessage: 0)
        XCTAssertEqual(policy.decide(.afterDelay, attempt: 1, renewedAlready: false, retryAfter: .seconds(7), random: &r), .retry(after: .seconds(7)))
        XCTAssertEqual(policy.decide(.withBackoff, attempt: 1, renewedAlready: false, retryAfter: .seconds(3600), random: &r), .stop)
    }

    func testNeverStopsAndAttemptsAreBounded() {
        let policy = RetryPolicy(maxAttempts: 3)
        var r = policy.random(forMessage: 0)
        XCTAssertEqual(policy.decide(.never, attempt: 1, renewedAlready: false, retryAfter: nil, random: &r), .stop)
        XCTAssertEqual(policy.decide(.withBackoff, attempt: 3, renewedAlready: false, retryAfter: nil, random: &r), .stop)
        XCTAssertEqual(policy.decide(.renewCredentialOnce, attempt: 1, renewedAlready: false, retryAfter: nil, random: &r), .renewCredentialAndRetry)
        XCTAssertEqual(policy.decide(.renewCredentialOnce, attempt: 2, renewedAlready: true, retryAfter: nil, random: &r), .stop)
    }

    func testExecuteRetriesTransientAnswersThenStopsOnSuccess() async {
        let sleeper = RecordingSleeper()
        let policy = RetryPolicy(maxAttempts: 5, baseDelay: .milliseconds(100), jitter: 0)
        let (result, attempts) = await policy.execute(messageIndex: 0, sleeper: sleeper, renewCredential: { true }) { n in
            n < 3 ? RetryStep("503", retryability: .withBackoff) : RetryStep("200", retryability: .never)
        }
        XCTAssertEqual(result, "200")
        XCTAssertEqual(attempts, 3)
        XCTAssertEqual(sleeper.delays, [.milliseconds(100), .milliseconds(200)])
    }

    func testExecuteRenewsTheCredentialExactlyOnce() async {
        let sleeper = RecordingSleeper()
        let renewals = LockedCounter()
        let (result, attempts) = await RetryPolicy().execute(messageIndex: 0, sleeper: sleeper, renewCredential: { renewals.increment(); return true }) { _ in
            RetryStep("ExpiredProviderToken", retryability: .renewCredentialOnce)
        }
        XCTAssertEqual(result, "ExpiredProviderToken")
        XCTAssertEqual(attempts, 2)
        XCTAssertEqual(renewals.value, 1)
        XCTAssertTrue(sleeper.delays.isEmpty)
    }

    func testRetryAfterHeaderParsesSecondsAndHTTPDate() {
        let now = Date(timeIntervalSince1970: 1_767_225_600)  // Thu, 01 Jan 2026 00:00:00 GMT
        XCTAssertEqual(RetryAfter.parse("5", now: now), .seconds(5))
        XCTAssertEqual(RetryAfter.parse("Thu, 01 Jan 2026 00:00:30 GMT", now: now), .seconds(30))
        XCTAssertNil(RetryAfter.parse("soon", now: now))
        XCTAssertNil(RetryAfter.parse(nil, now: now))
    }
}

final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0  // protected by `lock`
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
