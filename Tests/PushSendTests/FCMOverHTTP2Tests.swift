import XCTest
import PushAuth
import PushCore
import PushHTTP
import TestSupport
@testable import PushSend

/// The FCM client over the real transport: OAuth assertion verified at the server with the
/// service account's public key, every error code and its details through HTTP/2 + TLS.
final class FCMOverHTTP2Tests: XCTestCase {
    var dir: URL!
    var server: LocalPushServer!
    var http: HTTPClient!

    override func setUp() { dir = Fixtures.temporaryDirectory() }
    override func tearDown() async throws {
        await http?.shutdown()
        await server?.stop()
        try? FileManager.default.removeItem(at: dir)
    }

    func client(_ server: LocalPushServer) throws -> FCMClient {
        self.server = server
        http = try HTTPClient(configuration: HTTPClientConfiguration(caFile: Fixtures.caFile))
        let account = try ServiceAccount.load(path: try server.serviceAccountFile(in: dir))
        return FCMClient(baseURL: server.url, projectID: account.projectID, transport: http,
                         credential: OAuthTokenSource(account: account, transport: http), retry: .none)
    }

    let message = try! PreparedFCMMessage(document: try! JSONDocument.parse(Array(#"{"message":{"data":{"k":"v"}}}"#.utf8)),
                                          validateOnly: false)

    func testEveryErrorCodeWithItsDetailsSurvivesTheWire() async throws {
        let codes = FCMErrorCode.allKnown
        let fcm = try client(try LocalPushServer(fcm: { request in
            let body = String(decoding: request.body, as: UTF8.self)
            guard let i = codes.indices.first(where: { body.contains("inst\($0):") }) else { return nil }
            let error = FCMError(codes[i], message: "code \(codes[i].rawValue)",
                                 fieldViolations: [FCMFieldViolation(field: "message.token", description: "why \(i)")])
            return .now(ServerResponse(status: error.httpStatus, headers: ["content-type": "application/json"], body: error.json))
        }))
        for (i, code) in codes.enumerated() {
            let result = await fcm.send(message, to: .token(TestTokens.fcm(i)))
            guard case .rejected(let e) = result.outcome else { XCTFail("\(code): \(result.outcome)"); continue }
            XCTAssertEqual(e.errorCode, code)
            XCTAssertEqual(e.httpStatus, code.httpStatus)
            XCTAssertEqual(e.status, code.rpcStatus)
            XCTAssertEqual(e.message, "code \(code.rawValue)")
            XCTAssertEqual(e.fieldViolations, [FCMFieldViolation(field: "message.token", description: "why \(i)")])
        }
        XCTAssertEqual(server.snapshot.tokenExchanges, 1, "the access token is cached")
    }

    func testDryRunSendsValidateOnlyAndTheNameComesBack() async throws {
        let fcm = try client(try LocalPushServer())
        let dry = try PreparedFCMMessage(document: try JSONDocument.parse(Array(#"{"notification":{"title":"t"}}"#.utf8)), validateOnly: true)
        let result = await fcm.send(dry, to: .topic("news"))
        guard case .accepted(let name) = result.outcome else { return XCTFail("\(result.outcome)") }
        XCTAssertTrue(name.hasPrefix("projects/pushlab-dev/messages/"), name)
        let body = try JSONDocument.parse(Array(try XCTUnwrap(server.snapshot.fcmBodies.first).utf8)).root
        XCTAssertEqual(body["validate_only"], .bool(true))
        XCTAssertEqual(body["message"]?["topic"]?.stringValue, "news")
    }
}
