import Foundation
import PushCore
import PushHTTP
import TestSupport
import XCTest
@testable import PushGateway

/// The FCM route keeps the last access token a connection presented with its grant
/// (`FCMSendRoute.grant`): every request on that connection still gets every check — a
/// changed, unknown, expired, scope-less or other-project token is refused as on a new
/// connection. Driven in memory (the router and handler the server runs, one
/// `ConnectionContext` for the whole exchange), so the clock can move between requests.
final class FCMConnectionGrantTests: XCTestCase {
    var h: GatewayHarness!
    let connection = ConnectionContext(id: 7, isTLS: true, remoteAddress: "test", control: nil)
    let body = #"{"message":{"token":"cAbCdEfGhIjKlMnOpQrStU:APA91b\#(String(repeating: "Zx9_-Qw3", count: 17))","notification":{"title":"Hi"}}}"#

    override func setUp() async throws { h = try GatewayHarness() }
    override func tearDown() async throws { await h.stop() }

    private func issue(project: String = Fixtures.fcmProjectID, scopes: Set<String> = ["https://www.googleapis.com/auth/firebase.messaging"],
                       lifetime: TimeInterval = 3600) -> String {
        h.gateway.accessTokens.issue(IssuedAccessToken(clientEmail: "test@example.com", projectID: project, scopes: scopes,
                                                       expiresAt: h.clock.now.addingTimeInterval(lifetime)))
    }

    /// The answer's status and the Google RPC status name.
    private func send(_ authorization: String?) throws -> (Int, String?) {
        var headers: HTTPHeaders = ["content-type": "application/json"]
        if let authorization { headers.add("authorization", authorization) }
        let path = "/v1/projects/\(Fixtures.fcmProjectID)/messages:send"
        guard case .found(let handler, let parameters) = h.gateway.googleRouter.match(method: "POST", path: path) else {
            XCTFail("no FCM route")
            return (0, nil)
        }
        var request = ServerRequest(method: "POST", path: path, headers: headers, body: Array(body.utf8), connection: connection)
        request.pathParameters = parameters
        guard case .now(let response) = try handler(request) else {
            XCTFail("the FCM route answers at once")
            return (0, nil)
        }
        let json = try? JSONDocument.parse(response.body).root
        return (response.status, json?["error"]?["status"]?.stringValue)
    }

    func testEveryRequestOnOneConnectionIsCheckedAgainstItsOwnToken() throws {
        let valid = issue(lifetime: 60)
        XCTAssertEqual(try send("Bearer " + valid).0, 200)
        XCTAssertEqual(try send("Bearer " + valid).0, 200, "the same token again")
        let unknown = try send("Bearer ya29.pushlab.made-up")
        XCTAssertEqual(unknown.0, 401)
        XCTAssertEqual(unknown.1, "UNAUTHENTICATED")
        XCTAssertEqual(try send("bearer " + valid).0, 200, "the scheme is case-insensitive")
        XCTAssertEqual(try send(nil).0, 401, "no authorization after an accepted one")
        XCTAssertEqual(try send("Basic " + valid).0, 401)
        let noScope = try send("Bearer " + issue(scopes: ["https://www.googleapis.com/auth/userinfo.email"]))
        XCTAssertEqual(noScope.0, 403)
        XCTAssertEqual(noScope.1, "PERMISSION_DENIED")
        XCTAssertEqual(try send("Bearer " + issue(project: "someone-else")).1, "PERMISSION_DENIED")
        XCTAssertEqual(try send("Bearer " + valid).0, 200, "back to the first token")
        h.clock.advance(by: 61)
        let expired = try send("Bearer " + valid)
        XCTAssertEqual(expired.0, 401, "a token the connection presented before still expires")
        XCTAssertEqual(expired.1, "UNAUTHENTICATED")
    }

    /// The message name is written into one buffer: the same text the interpolation gave.
    func testMessageNameIsProjectMicrosecondsAndRandomHex() {
        var cases: [(Int64, UInt64)] = [(1_767_225_600_123_456, 0xabc), (0, 0), (7, UInt64.max), (-5, 16), (Int64.max, 0xF), (Int64.min, 0x10)]
        // Every decimal and hex digit count: 10^k - 1 and 10^k, 16^k - 1 and 16^k.
        var ten: Int64 = 1, sixteen: UInt64 = 1
        for _ in 0..<18 {
            ten *= 10
            cases += [(ten - 1, sixteen &- 1), (ten, sixteen), (-ten, sixteen &* 16 &- 1)]
            sixteen = sixteen &* 16
        }
        for (micros, random) in cases {
            XCTAssertEqual(FCMSendRoute.messageName(project: "pushlab-dev", micros: micros, random: random),
                           "projects/pushlab-dev/messages/0:\(micros)%\(String(random, radix: 16))")
        }
        XCTAssertEqual(FCMSendRoute.messageName(project: "", micros: 12, random: 0xa), "projects//messages/0:12%a")
    }

    /// The 200 answer's body is written straight into its buffer: the same bytes as the JSON text.
    func testAnswerIsTheNameAsJSON() {
        for name in ["", "n", "projects/pushlab-dev/messages/0:1767225600123456%abc", "projects/p/messages/fake_message_id",
                     "projects/é-π/messages/0:1%f", String(repeating: "x", count: 300)] {
            XCTAssertEqual(String(decoding: FCMSendRoute.answer(name: name), as: UTF8.self), #"{"name":"\#(name)"}"#)
        }
    }
}
