import PushHTTP
import TestSupport
import XCTest

/// TLS verification is on by default and its failure says what to do.
class ClientTLSVerificationTests: ClientTransportTestCase {
    func testUntrustedCertificateFailsWithAClearError() async throws {
        let server = try ClientTestServer(certificate: Fixtures.untrustedCert, key: Fixtures.untrustedKey)
        let client = try makeClient(.testing())
        do {
            _ = try await client.send(HTTPRequest(url: server.tlsURL + "/echo"))
            XCTFail("a self-signed certificate must not be trusted")
        } catch let error as HTTPClientError {
            guard case .tlsFailed(let why) = error else { return XCTFail("got \(error)") }
            XCTAssertTrue(why.contains(Fixtures.caFile), "names the CA file it tried: \(why)")
            XCTAssertTrue(why.contains("caFile") && why.contains("--ca-file"), "says how to fix it: \(why)")
        }
        await client.shutdown()
        await server.stop()
    }

    func testDevCertificateNeedsTheDevCA() async throws {
        let server = try ClientTestServer()
        let systemStore = try makeClient(HTTPClientConfiguration())
        do {
            _ = try await systemStore.send(HTTPRequest(url: server.tlsURL + "/echo"))
            XCTFail("the system store does not know pushlab's dev CA")
        } catch let error as HTTPClientError {
            guard case .tlsFailed(let why) = error else { return XCTFail("got \(error)") }
            XCTAssertTrue(why.contains("system CA store"), why)
            XCTAssertTrue(error.description.contains("certs/ca.pem"), error.description)
        }
        await systemStore.shutdown()

        let devCA = try makeClient(HTTPClientConfiguration(caFile: Fixtures.caFile))
        let response = try await devCA.send(HTTPRequest(url: server.tlsURL + "/echo"))
        XCTAssertEqual(response.status, 200)
        await devCA.shutdown()
        await server.stop()
    }

    func testUnreadableCAFileIsReported() async throws {
        let server = try ClientTestServer()
        let client = try makeClient(HTTPClientConfiguration(caFile: "/nonexistent/ca.pem"))
        do {
            _ = try await client.send(HTTPRequest(url: server.tlsURL + "/echo"))
            XCTFail("a missing CA file must fail")
        } catch let error as HTTPClientError {
            guard case .tlsFailed(let why) = error else { return XCTFail("got \(error)") }
            XCTAssertTrue(why.contains("/nonexistent/ca.pem"), why)
        }
        await client.shutdown()
        await server.stop()
    }
}

/// The same suite against the direct nghttp2 client (Linux test discovery sees only methods
/// a class declares, hence one forwarding line per test).
final class NGHTTP2ClientTLSVerificationTests: ClientTLSVerificationTests {
    override class var transport: HTTPTransportKind { .nghttp2 }
    override func testUntrustedCertificateFailsWithAClearError() async throws { try await super.testUntrustedCertificateFailsWithAClearError() }
    override func testDevCertificateNeedsTheDevCA() async throws { try await super.testDevCertificateNeedsTheDevCA() }
    override func testUnreadableCAFileIsReported() async throws { try await super.testUnreadableCAFileIsReported() }
}
