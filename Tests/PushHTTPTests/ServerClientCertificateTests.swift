import Foundation
import PushHTTP
import TestSupport
import XCTest

/// A server that asks for client certificates (optional) hands each handler the certificate and
/// its verdict; the client presents PEM or PKCS#12 identities. Checked with pushlab's client and
/// with curl as an independent one.
final class ServerClientCertificateTests: XCTestCase {
    private func startServer() throws -> HTTPServer {
        var router = Router()
        router.add("GET", "/whoami") { request in
            guard let peer = request.connection.peerCertificate else { return .now(.json(200, #"{"certificate":"none"}"#)) }
            let verdict = peer.verified ? "verified" : "rejected: \(peer.verificationError ?? "")"
            return .now(.json(200, #"{"certificate":"\#(verdict)","bytes":\#(peer.der.count)}"#))
        }
        return try ServerTestFixture.start(router) { $0.clientCertificateCAFile = Fixtures.caFile }
    }

    private func ask(_ server: HTTPServer, as certificate: HTTPClientConfiguration.ClientCertificate?) async throws -> String {
        var configuration = HTTPClientConfiguration(caFile: Fixtures.caFile)
        configuration.clientCertificate = certificate
        let client = try HTTPClient(configuration: configuration)
        // Shut down on both paths, and awaited (never a fire-and-forget `defer { Task { … } }`).
        let response: HTTPResponse
        do {
            response = try await client.send(HTTPRequest(url: "https://localhost:\(server.tlsPort!)/whoami"))
        } catch {
            await client.shutdown()
            throw error
        }
        await client.shutdown()
        return String(decoding: response.body, as: UTF8.self)
    }

    func testVerifiedUntrustedExpiredAndNoCertificateAreToldApart() async throws {
        let server = try startServer()
        addTeardownBlock { await server.stop() }  // a no-op once stopped below; stops it when an ask throws
        let pem = HTTPClientConfiguration.ClientCertificate(file: Fixtures.path("certs/apns-client.pem"),
                                                           format: .pem(keyFile: Fixtures.path("certs/apns-client.key")))
        let p12 = HTTPClientConfiguration.ClientCertificate(file: Fixtures.path("certs/apns-client.p12"), format: .pkcs12(password: "pushlab-dev"))
        let untrusted = HTTPClientConfiguration.ClientCertificate(file: Fixtures.path("certs/apns-client-untrusted.pem"),
                                                                 format: .pem(keyFile: Fixtures.path("certs/apns-client-untrusted.key")))
        let expired = HTTPClientConfiguration.ClientCertificate(file: Fixtures.path("certs/apns-client-expired.pem"),
                                                               format: .pem(keyFile: Fixtures.path("certs/apns-client-expired.key")))
        let pemAnswer = try await ask(server, as: pem)
        let p12Answer = try await ask(server, as: p12)
        let untrustedAnswer = try await ask(server, as: untrusted)
        let expiredAnswer = try await ask(server, as: expired)
        let noneAnswer = try await ask(server, as: nil)
        await server.stop()
        XCTAssertTrue(pemAnswer.contains(#""certificate":"verified""#), pemAnswer)
        XCTAssertTrue(p12Answer.contains(#""certificate":"verified""#), p12Answer)
        XCTAssertTrue(untrustedAnswer.contains("rejected"), untrustedAnswer)
        XCTAssertTrue(expiredAnswer.contains("rejected: certificate has expired"), expiredAnswer)
        XCTAssertEqual(noneAnswer, #"{"certificate":"none"}"#, "the certificate is optional: token-auth clients still connect")
    }

    func testCurlPresentingTheDevCertificateIsVerified() async throws {
        let server = try startServer()
        let r = try ServerTestFixture.curl(["--cert", Fixtures.path("certs/apns-client.pem"), "--key", Fixtures.path("certs/apns-client.key"),
                                            "https://localhost:\(server.tlsPort!)/whoami"])
        await server.stop()
        XCTAssertEqual(r.status, 200, r.stderr)
        XCTAssertTrue(r.bodyText.contains(#""certificate":"verified""#), r.bodyText)
    }

    func testWrongPKCS12PasswordFailsTheClientWithATLSError() async throws {
        let server = try startServer()
        var configuration = HTTPClientConfiguration(caFile: Fixtures.caFile)
        configuration.clientCertificate = .init(file: Fixtures.path("certs/apns-client.p12"), format: .pkcs12(password: "wrong"))
        let client = try HTTPClient(configuration: configuration)
        do {
            _ = try await client.send(HTTPRequest(url: "https://localhost:\(server.tlsPort!)/whoami"))
            XCTFail("a wrong password must not connect")
        } catch {
            XCTAssertTrue("\(error)".lowercased().contains("cert") || "\(error)".lowercased().contains("tls"), "\(error)")
        }
        await client.shutdown()
        await server.stop()
    }
}
