import Foundation
import PushAuth
import PushCore
import TestSupport
import XCTest

/// docs/specs/apns.md "Provider token": reuse one token; refresh at ~50 minutes, never more often than
/// every 20 minutes; on ExpiredProviderToken mint a new one (respecting the floor) once.
final class ProviderTokenCacheTests: XCTestCase {
    private let clock = ManualTimeSource()

    private func cache() throws -> ProviderTokenCache {
        ProviderTokenCache(key: try APNsAuthKey.load(path: Fixtures.apnsKey, teamID: Fixtures.apnsTeamID), timeSource: clock)
    }

    func testOneTokenIsReusedUntil50Minutes() throws {
        let tokens = try cache()
        let first = try tokens.token()
        clock.advance(by: 49 * 60 + 59)
        XCTAssertEqual(try tokens.token(), first)
        XCTAssertEqual(tokens.mintCount, 1)
        clock.advance(by: 1)
        let second = try tokens.token()
        XCTAssertNotEqual(second, first)
        XCTAssertEqual(second.issuedAt, clock.now)
        XCTAssertEqual(tokens.mintCount, 2)
        XCTAssertEqual(try JWT.parse(second.jwt).claims.iat, Int64(clock.now.timeIntervalSince1970))
    }

    func testTokenCarriesBearerAndNeverPrintsTheJWT() throws {
        let token = try cache().token()
        XCTAssertEqual(token.authorization, "bearer " + token.jwt)
        XCTAssertFalse(token.description.contains(token.jwt))
        XCTAssertFalse("\(token)".contains(String(token.jwt.prefix(20))))
        var dumped = ""
        dump(token, to: &dumped)
        XCTAssertFalse(dumped.contains(String(token.jwt.prefix(20))), dumped)
    }

    func testExpiredRejectionBefore20MinutesDoesNotMint() throws {
        let tokens = try cache()
        let first = try tokens.token()
        clock.advance(by: 5 * 60)
        let renewal = try tokens.invalidate(after: first.jwt)
        XCTAssertEqual(renewal, .tooSoon(notBefore: first.issuedAt.addingTimeInterval(20 * 60)))
        XCTAssertEqual(tokens.mintCount, 1)
        // Until the floor, the (rejected) token stays the only one; at the floor a new one is minted.
        clock.advance(by: 14 * 60 + 59)
        XCTAssertEqual(try tokens.token(), first)
        clock.advance(by: 1)
        XCTAssertNotEqual(try tokens.token(), first)
        XCTAssertEqual(tokens.mintCount, 2)
    }

    func testExpiredRejectionAfter20MinutesMintsOnceForAllRejectedRequests() throws {
        let tokens = try cache()
        let first = try tokens.token()
        clock.advance(by: 25 * 60)
        guard case .renewed(let second) = try tokens.invalidate(after: first.jwt) else { return XCTFail() }
        XCTAssertNotEqual(second, first)
        // Other in-flight requests rejected with the same old token get the new one, no mint.
        for _ in 0..<10 { XCTAssertEqual(try tokens.invalidate(after: first.jwt), .renewed(second)) }
        XCTAssertEqual(try tokens.token(), second)
        XCTAssertEqual(tokens.mintCount, 2)
    }

    func testTwoHundredConcurrentCallersMintExactlyOnce() async throws {
        let tokens = try cache()
        let results = try await withThrowingTaskGroup(of: ProviderToken.self) { group in
            for _ in 0..<200 { group.addTask { try tokens.token() } }
            var all: [ProviderToken] = []
            for try await token in group { all.append(token) }
            return all
        }
        XCTAssertEqual(results.count, 200)
        XCTAssertEqual(Set(results).count, 1)
        XCTAssertEqual(tokens.mintCount, 1)

        // And at the refresh point, 200 concurrent callers again produce one mint.
        clock.advance(by: 50 * 60)
        let refreshed = try await withThrowingTaskGroup(of: ProviderToken.self) { group in
            for _ in 0..<200 { group.addTask { try tokens.token() } }
            var all = Set<ProviderToken>()
            for try await token in group { all.insert(token) }
            return all
        }
        XCTAssertEqual(refreshed.count, 1)
        XCTAssertEqual(tokens.mintCount, 2)
    }

    func testConcurrentExpiredRejectionsRemintOnce() async throws {
        let tokens = try cache()
        let first = try tokens.token()
        clock.advance(by: 30 * 60)
        let renewals = try await withThrowingTaskGroup(of: ProviderTokenRenewal.self) { group in
            for _ in 0..<200 { group.addTask { try tokens.invalidate(after: first.jwt) } }
            var all = Set<ProviderTokenRenewal>()
            for try await renewal in group { all.insert(renewal) }
            return all
        }
        XCTAssertEqual(renewals.count, 1)
        XCTAssertEqual(tokens.mintCount, 2)
    }
}
