import Foundation
import PushAuth
import PushHTTP
import Synchronization
import TestSupport
import XCTest

/// docs/specs/fcm.md "Access token" over the real parts: pushlab's libcurl `HTTPClient` posting to a token
/// endpoint on pushlab's nghttp2 server over TLS, in HTTP/2 and HTTP/1.1. The endpoint checks
/// the assertion the way Google does (RS256 signature with the account's public key, aud =
/// token_uri, scope, exp ≤ iat + 3600) before issuing a token.
final class OAuthTokenSourceOverHTTPTests: XCTestCase {
    /// What the endpoint has seen: tokens issued, and its own port (known only after start).
    private final class Issued: Sendable {
        let count = Atomic<Int>(0)
        let port = Atomic<Int>(0)
    }

    private func startTokenEndpoint(issued: Issued) throws -> HTTPServer {
        let publicKey = try PublicKey(contentsOfFile: Fixtures.fcmPublicKey)
        var router = Router()
        router.add("POST", "/token") { request in
            .now(Self.answer(request, publicKey: publicKey, issued: issued))
        }
        let server = HTTPServer(configuration: HTTPServerConfiguration(tlsPort: 0, cleartextPort: nil,
                                                                      certificateFile: Fixtures.serverCert,
                                                                      privateKeyFile: Fixtures.serverKey),
                                router: router)
        try server.start()
        issued.port.store(server.tlsPort ?? 0, ordering: .relaxed)
        return server
    }

    private static func answer(_ request: ServerRequest, publicKey: PublicKey, issued: Issued) -> ServerResponse {
        let body = String(decoding: request.body, as: UTF8.self)
        var form: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
            if kv.count == 2 { form[kv[0]] = kv[1] }
        }
        guard request.headers["content-type"] == "application/x-www-form-urlencoded",
              form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer", let assertion = form["assertion"]
        else { return .json(400, #"{"error":"unsupported_grant_type"}"#) }
        do {
            let jwt = try JWT.verify(assertion, with: publicKey, algorithm: .rs256)
            let ownURI = "https://localhost:\(issued.port.load(ordering: .relaxed))/token"
            guard let iat = jwt.claims.iat, let exp = jwt.claims.exp, exp > iat, exp - iat <= 3600,
                  jwt.claims.scope == OAuthTokenSource.firebaseMessagingScope, jwt.claims.audience == ownURI
            else { return .json(400, #"{"error":"invalid_grant","error_description":"Invalid JWT claims."}"#) }
        } catch {
            return .json(400, #"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#)
        }
        let n = issued.count.add(1, ordering: .relaxed).newValue
        return .json(200, #"{"access_token":"ya29.local-\#(n)","expires_in":3599,"token_type":"Bearer"}"#)
    }

    private func account(port: Int, key: PrivateKey? = nil) throws -> ServiceAccount {
        let dev = try ServiceAccount.load(path: Fixtures.fcmServiceAccount)
        return ServiceAccount(projectID: dev.projectID, clientEmail: dev.clientEmail, privateKeyID: dev.privateKeyID,
                              privateKey: key ?? dev.privateKey, tokenURI: "https://localhost:\(port)/token")
    }

    private func exchange(mode: HTTPClientConfiguration.ProtocolMode, expectVersion: HTTPVersion) async throws {
        let issued = Issued()
        let server = try startTokenEndpoint(issued: issued)
        let client = try HTTPClient(configuration: HTTPClientConfiguration(protocolMode: mode, caFile: Fixtures.caFile))
        let port = try XCTUnwrap(server.tlsPort)
        let source = OAuthTokenSource(account: try account(port: port), transport: client)
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 { group.addTask { try await source.accessToken().value } }
            var all = Set<String>()
            for try await value in group { all.insert(value) }
            return all
        }
        XCTAssertEqual(tokens, ["ya29.local-1"])
        XCTAssertEqual(issued.count.load(ordering: .relaxed), 1)

        // A key the endpoint does not know is refused with Google's error shape.
        let stranger = OAuthTokenSource(account: try account(port: port, key: PrivateKey.generateRSA(bits: 2048)),
                                        transport: client)
        do { _ = try await stranger.accessToken(); XCTFail("the stranger's assertion was accepted") } catch {
            XCTAssertEqual(error, .rejected(status: 400, error: "invalid_grant", description: "Invalid JWT Signature."))
        }
        let probe = try await client.send(HTTPRequest(method: "POST", url: "https://localhost:\(port)/token"))
        XCTAssertEqual(probe.version, expectVersion)
        await client.shutdown()
        await server.stop()
    }

    func testTokenExchangeOverHTTP2AndTLS() async throws {
        try await exchange(mode: .http2, expectVersion: .http2)
    }

    func testTokenExchangeOverHTTP1AndTLS() async throws {
        try await exchange(mode: .http1, expectVersion: .http1_1)
    }

    func testUnreachableTokenEndpointIsATransportError() async throws {
        let client = try HTTPClient(configuration: HTTPClientConfiguration(caFile: Fixtures.caFile, connectTimeout: .seconds(2)))
        // Port 1 on loopback: nothing listens there.
        let source = OAuthTokenSource(account: try account(port: 1), transport: client)
        do { _ = try await source.accessToken(); XCTFail() } catch {
            guard case .transport = error else { return XCTFail("\(error)") }
        }
        await client.shutdown()
    }
}
