import Foundation
import PushAuth
import PushCore
import PushHTTP
import TestSupport
import XCTest

/// docs/specs/fcm.md "Access token": RS256 assertion posted as a form to token_uri; the token cached and
/// refreshed shortly before expiry; one exchange for many concurrent callers.
final class OAuthTokenSourceTests: XCTestCase {
    private let clock = ManualTimeSource()

    private func account() throws -> ServiceAccount { try ServiceAccount.load(path: Fixtures.fcmServiceAccount) }

    private func form(_ request: HTTPRequest) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: request.body, as: UTF8.self).split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
            fields[kv[0]] = kv.count > 1 ? kv[1] : ""
        }
        return fields
    }

    func testAssertionRequestMatchesGooglesContract() async throws {
        let endpoint = InMemoryTokenEndpoint.issuing()
        let source = OAuthTokenSource(account: try account(), transport: endpoint, timeSource: clock)
        let token = try await source.accessToken()
        XCTAssertEqual(token.value, "token-1")
        XCTAssertEqual(token.authorization, "Bearer token-1")
        XCTAssertEqual(token.expiresAt, clock.now.addingTimeInterval(3599))
        XCTAssertFalse(token.description.contains("token-1"))
        var dumped = ""
        dump(token, to: &dumped)
        XCTAssertFalse(dumped.contains("token-1"), dumped)

        let request = try XCTUnwrap(endpoint.requests.first)
        XCTAssertEqual(request.method, "POST")
        XCTAssertEqual(request.url, "https://localhost:8443/token")
        XCTAssertEqual(request.headers["content-type"], "application/x-www-form-urlencoded")
        let fields = form(request)
        XCTAssertEqual(fields["grant_type"], "urn:ietf:params:oauth:grant-type:jwt-bearer")
        let jwt = try JWT.verify(try XCTUnwrap(fields["assertion"]), with: try PublicKey(contentsOfFile: Fixtures.fcmPublicKey),
                                 algorithm: .rs256)
        XCTAssertEqual(jwt.header, JWTHeader(alg: .rs256, kid: "ea1b5d445b081a68013114f98944ae9ad33306fa", typ: "JWT"))
        let now = Int64(clock.now.timeIntervalSince1970)
        XCTAssertEqual(jwt.claims, JWTClaims(iss: "pushlab-dev@pushlab-dev.iam.gserviceaccount.com",
                                             aud: ["https://localhost:8443/token"],
                                             scope: "https://www.googleapis.com/auth/firebase.messaging",
                                             iat: now, exp: now + 3600))
    }

    func testPyJWTVerifiesTheAssertion() throws {
        let assertion = try OAuthTokenSource(account: try account(), transport: UnusedTransport(), timeSource: clock)
            .assertion(issuedAt: clock.now)
        let result = try AuthTestTools.python("""
            import sys, jwt
            c = jwt.decode(sys.argv[2], open(sys.argv[1]).read(), algorithms=["RS256"],
                           audience="https://localhost:8443/token", options={"verify_exp": False, "verify_iat": False})
            assert c["exp"] - c["iat"] <= 3600, c
            print(c["iss"], c["scope"])
            """, [Fixtures.fcmPublicKey, assertion])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines),
                       "pushlab-dev@pushlab-dev.iam.gserviceaccount.com https://www.googleapis.com/auth/firebase.messaging")
    }

    func testTokenIsCachedAndRefreshedFiveMinutesBeforeExpiry() async throws {
        let endpoint = InMemoryTokenEndpoint.issuing(expiresIn: 3600)
        let source = OAuthTokenSource(account: try account(), transport: endpoint, timeSource: clock)
        let first = try await source.accessToken()
        clock.advance(by: 55 * 60 - 1)
        let reused = try await source.accessToken()
        XCTAssertEqual(reused, first)
        let count = await source.exchangeCount
        XCTAssertEqual(count, 1)
        clock.advance(by: 1)
        let refreshed = try await source.accessToken()
        XCTAssertEqual(refreshed.value, "token-2")
        XCTAssertEqual(endpoint.requests.count, 2)
    }

    func testTheCurrentTokenIsReadableWithoutAnExchangeOnlyWhileValid() async throws {
        let endpoint = InMemoryTokenEndpoint.issuing(expiresIn: 3600)
        let source = OAuthTokenSource(account: try account(), transport: endpoint, timeSource: clock)
        XCTAssertNil(source.currentAccessToken(), "nothing fetched yet")
        let first = try await source.accessToken()
        XCTAssertEqual(source.currentAccessToken(), first)
        clock.advance(by: 55 * 60)  // within the five-minute refresh margin
        XCTAssertNil(source.currentAccessToken())
        let refreshed = try await source.accessToken()
        XCTAssertEqual(source.currentAccessToken(), refreshed)
        await source.invalidate(refreshed)
        XCTAssertNil(source.currentAccessToken())
        XCTAssertEqual(endpoint.requests.count, 2)
    }

    func testInvalidateDropsTheCachedToken() async throws {
        let source = OAuthTokenSource(account: try account(), transport: InMemoryTokenEndpoint.issuing(), timeSource: clock)
        let first = try await source.accessToken()
        await source.invalidate(first)
        let second = try await source.accessToken()
        XCTAssertEqual(second.value, "token-2")
        // By value, as a sender sees it on a 401; a stale value leaves the newer token alone.
        await source.invalidate(afterRejecting: "token-1")
        let stillSecond = try await source.accessToken()
        XCTAssertEqual(stillSecond, second)
        await source.invalidate(afterRejecting: "Bearer token-2")
        let third = try await source.accessToken()
        XCTAssertEqual(third.value, "token-3")
        // The header's scheme in any case, with several spaces (RFC 6750: one Bearer parser).
        await source.invalidate(afterRejecting: "BEARER  token-3")
        let fourth = try await source.accessToken()
        XCTAssertEqual(fourth.value, "token-4")
    }

    func testTwoHundredConcurrentCallersShareOneExchange() async throws {
        let endpoint = InMemoryTokenEndpoint.issuing(delay: .milliseconds(100))
        let source = OAuthTokenSource(account: try account(), transport: endpoint, timeSource: clock)
        let values = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<200 { group.addTask { try await source.accessToken().value } }
            var all = Set<String>()
            for try await value in group { all.insert(value) }
            return all
        }
        XCTAssertEqual(values, ["token-1"])
        XCTAssertEqual(endpoint.requests.count, 1)
    }

    func testOAuthErrorShapeBecomesATypedError() async throws {
        let endpoint = InMemoryTokenEndpoint { _, _ in
            .json(400, #"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#)
        }
        let source = OAuthTokenSource(account: try account(), transport: endpoint, timeSource: clock)
        do {
            _ = try await source.accessToken()
            XCTFail("should fail")
        } catch {
            XCTAssertEqual(error, .rejected(status: 400, error: "invalid_grant", description: "Invalid JWT Signature."))
            XCTAssertTrue(error.fix.contains("clock"))
        }
        // A failure is not cached: the next call asks again.
        _ = try? await source.accessToken()
        XCTAssertEqual(endpoint.requests.count, 2)
    }

    func testOtherFailuresAreTyped() async throws {
        let cases: [(HTTPResponse, OAuthError)] = [
            (.json(401, #"{"error":{"code":401,"message":"bad key","status":"UNAUTHENTICATED"}}"#),
             .rejected(status: 401, error: "UNAUTHENTICATED", description: "bad key")),
            (.json(502, "<html>Bad Gateway</html>"), .unexpectedStatus(status: 502, body: "<html>Bad Gateway</html>")),
            (.json(200, #"{"token_type":"Bearer"}"#), .malformedResponse("no access_token")),
            (.json(200, "not json"), .malformedResponse("the body is not a JSON object")),
            (.json(200, #"{"access_token":"x","token_type":"mac"}"#), .malformedResponse("token_type 'mac' is not Bearer")),
        ]
        for (response, expected) in cases {
            let source = OAuthTokenSource(account: try account(), transport: InMemoryTokenEndpoint { _, _ in response },
                                          timeSource: clock)
            do { _ = try await source.accessToken(); XCTFail("\(expected)") } catch { XCTAssertEqual(error, expected) }
        }
        let unreachable = OAuthTokenSource(account: try account(), transport: UnusedTransport(), timeSource: clock)
        do { _ = try await unreachable.accessToken(); XCTFail() } catch {
            guard case .transport = error else { return XCTFail("\(error)") }
        }
    }

    func testUnexpectedBodyNeverEchoesAJWT() async throws {
        let body = "echo: eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJ4In0.c2ln was refused"
        let source = OAuthTokenSource(account: try account(), transport: InMemoryTokenEndpoint { _, _ in .json(400, body) },
                                      timeSource: clock)
        do { _ = try await source.accessToken(); XCTFail() } catch {
            XCTAssertEqual(error, .unexpectedStatus(status: 400, body: "echo: <redacted> was refused"))
            XCTAssertFalse(error.description.contains("eyJ"))
        }
    }
}
