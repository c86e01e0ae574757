import XCTest
import PushAuth
import PushCore
import PushHTTP
import TestSupport
@testable import PushSend

/// The APNs client over the real transport: libcurl HTTP/2 + TLS to PushHTTP's server, the
/// provider JWT checked at the server with the public key.
final class APNsOverHTTP2Tests: XCTestCase {
    var server: LocalPushServer!
    var http: HTTPClient!

    override func tearDown() async throws {
        await http?.shutdown()
        await server?.stop()
    }

    func makeClient(_ server: LocalPushServer, retry: RetryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(20)),
                    sleeper: any RetrySleeper = TaskSleeper()) throws -> APNsClient {
        self.server = server
        http = try HTTPClient(configuration: HTTPClientConfiguration(caFile: Fixtures.caFile))
        let key = try APNsAuthKey.load(path: Fixtures.apnsKey, teamID: Fixtures.apnsTeamID)
        return APNsClient(endpoint: try .custom(server.url), transport: http, credential: ProviderTokenCache(key: key),
                          retry: retry, sleeper: sleeper)
    }

    let push = try! PreparedAPNsPush(payload: Array(#"{"aps":{"alert":{"title":"Hi","body":"there"}}}"#.utf8),
                                     options: APNsPushOptions(topic: Fixtures.bundleID))

    func testPushIsAcceptedWithAJWTTheServerVerifiesWithThePublicKey() async throws {
        let client = try makeClient(try LocalPushServer())
        let result = await client.send(push, to: TestTokens.apns)
        guard case .accepted(let a) = result.outcome else { return XCTFail("\(result.outcome)") }
        XCTAssertEqual(a.apnsID, result.apnsID)
        XCTAssertEqual(server.snapshot.accepted[result.apnsID], 1)
        XCTAssertEqual(server.snapshot.jwts.count, 1)
    }

    /// Independent of PushAuth: PyJWT + cryptography verify the JWT pushlab sent.
    func testProviderJWTVerifiesWithPyJWT() async throws {
        let client = try makeClient(try LocalPushServer())
        _ = await client.send(push, to: TestTokens.apns)
        let jwt = try XCTUnwrap(server.snapshot.jwts.first)
        let script = """
        import jwt, sys
        tok = sys.stdin.read().strip()
        claims = jwt.decode(tok, open(sys.argv[1]).read(), algorithms=["ES256"], options={"verify_aud": False})
        hdr = jwt.get_unverified_header(tok)
        print(hdr["kid"], claims["iss"], isinstance(claims["iat"], int))
        """
        let r = try ProcessRunner.run(Fixtures.python, ["-c", script, Fixtures.apnsPublicKey], stdin: jwt)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "PLDEVKEY01 PLDEVTEAM1 True")
    }

    func testEveryReasonIsMappedOverTheWire() async throws {
        let reasons = APNsReason.allKnown + [.other("SomethingApple2030")]
        let client = try makeClient(try LocalPushServer(apns: { request in
            let index = Int(request.pathParameters["token"]!.suffix(4), radix: 16)!
            let reason = reasons[index]
            let status = reason.status ?? 400
            return .now(ServerResponse(status: status, body: APNsErrorBody(reason: reason, timestamp: status == 410 ? 1_767_225_600_000 : nil).json))
        }), retry: .none)
        for (i, reason) in reasons.enumerated() {
            let result = await client.send(push, to: TestTokens.apns(i))
            guard case .rejected(let r) = result.outcome else { XCTFail("\(reason): \(result.outcome)"); continue }
            XCTAssertEqual(r.reason, reason)
            XCTAssertEqual(r.status, reason.status ?? 400)
            if r.status == 410 { XCTAssertEqual(r.timestamp, 1_767_225_600_000) }
        }
    }

    func testServerErrorThenSuccessAndNeverRetryListOverTheWire() async throws {
        let client = try makeClient(try LocalPushServer(apns: { request in
            let token = request.pathParameters["token"]!
            if token == TestTokens.apns(1) {
                // First try of this token: 500; second: through.
                let n = request.connection.storage.update("t1", default: 0) { (n: inout Int) -> Int in n += 1; return n }
                return n == 1 ? .now(ServerResponse(status: 500, body: APNsErrorBody(reason: .internalServerError).json)) : nil
            }
            if token == TestTokens.apns(2) { return .now(ServerResponse(status: 410, body: APNsErrorBody(reason: .unregistered, timestamp: 5).json)) }
            return nil
        }))
        let ok = await client.send(push, to: TestTokens.apns(1))
        XCTAssertTrue(ok.isAccepted)
        XCTAssertEqual(ok.attempts, 2)
        let before = server.snapshot.requests
        let dead = await client.send(push, to: TestTokens.apns(2))
        XCTAssertEqual(dead.attempts, 1)
        XCTAssertEqual(server.snapshot.requests - before, 1, "Unregistered must not be retried")
        XCTAssertTrue(dead.report.prune)
    }

    func testRetryAfterFromTheServerIsHonoured() async throws {
        let sleeper = RecordingSleeper()
        let client = try makeClient(try LocalPushServer(apns: { request in
            let n = request.connection.storage.update("n", default: 0) { (n: inout Int) -> Int in n += 1; return n }
            return n == 1 ? .now(ServerResponse(status: 429, headers: ["retry-after": "3"], body: APNsErrorBody(reason: .tooManyRequests).json)) : nil
        }), sleeper: sleeper)
        let result = await client.send(push, to: TestTokens.apns)
        XCTAssertTrue(result.isAccepted)
        XCTAssertEqual(sleeper.delays, [.seconds(3)])
    }

    func testConnectionRefusedIsRetriedThenReportedAsFailed() async throws {
        // A port that was just free: bind, read, close.
        let probe = try LocalPushServer()
        let deadURL = probe.url
        await probe.stop()
        let sleeper = RecordingSleeper()
        http = try HTTPClient(configuration: HTTPClientConfiguration(caFile: Fixtures.caFile))
        let key = try APNsAuthKey.load(path: Fixtures.apnsKey, teamID: Fixtures.apnsTeamID)
        let client = APNsClient(endpoint: try .custom(deadURL), transport: http, credential: ProviderTokenCache(key: key),
                                retry: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(1)), sleeper: sleeper)
        let result = await client.send(push, to: TestTokens.apns)
        XCTAssertEqual(result.report.outcome, .failed)
        XCTAssertEqual(result.attempts, 3)
        XCTAssertEqual(sleeper.delays.count, 2)
    }
}
