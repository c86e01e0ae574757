import Foundation
import PushHTTP
import TestSupport
import XCTest

/// The real curl binary against every listener and HTTP version the server offers.
final class ServerRoundTripTests: XCTestCase {
    private var server: HTTPServer!

    override func setUp() async throws {
        server = try ServerTestFixture.start(ServerTestFixture.standardRouter())
    }

    override func tearDown() async throws {
        await server.stop()
    }

    private var tls: String { "https://localhost:\(server.tlsPort!)" }
    private var cleartext: String { "http://127.0.0.1:\(server.cleartextPort!)" }

    func testTLSNegotiatesHTTP2ThroughALPN() throws {
        let result = try ServerTestFixture.curl(["--http2", "\(tls)/health"])
        XCTAssertEqual(result.status, 200, result.stderr)
        XCTAssertEqual(result.version, "2")
        XCTAssertEqual(result.bodyText, #"{"status":"ok"}"#)
    }

    func testTLSServesHTTP11WhenTheClientOffersOnlyHTTP11() throws {
        let result = try ServerTestFixture.curl(["--http1.1", "\(tls)/health"])
        XCTAssertEqual(result.status, 200, result.stderr)
        XCTAssertEqual(result.version, "1.1")
        XCTAssertEqual(result.bodyText, #"{"status":"ok"}"#)
    }

    func testCleartextServesH2CWithPriorKnowledge() throws {
        let result = try ServerTestFixture.curl(["--http2-prior-knowledge", "\(cleartext)/health"])
        XCTAssertEqual(result.status, 200, result.stderr)
        XCTAssertEqual(result.version, "2")
    }

    func testCleartextServesHTTP11() throws {
        let result = try ServerTestFixture.curl(["--http1.1", "\(cleartext)/health"])
        XCTAssertEqual(result.status, 200, result.stderr)
        XCTAssertEqual(result.version, "1.1")
        XCTAssertEqual(result.bodyText, #"{"status":"ok"}"#)
    }

    func testHTTP11KeepAliveServesSeveralRequestsOnOneConnection() throws {
        let result = try ProcessRunner.run(ServerTestFixture.curlPath, ["-sS", "--http1.1", "-v", "\(cleartext)/health",
                                                                       "\(cleartext)/health", "\(cleartext)/health"])
        XCTAssertEqual(result.stdout, String(repeating: #"{"status":"ok"}"#, count: 3))
        XCTAssertTrue(result.stderr.contains("Re-using existing connection"), result.stderr)
    }

    func testOneMegabyteBodiesTravelBothWaysOnEveryProtocol() throws {
        let upload = ServerTestFixture.patternBytes(1 << 20 | 12345)
        let file = try ServerTestFixture.temporaryFile(upload)
        let cases: [(String, [String], String)] = [
            ("TLS h2", ["--http2"], tls), ("TLS HTTP/1.1", ["--http1.1"], tls),
            ("h2c", ["--http2-prior-knowledge"], cleartext), ("cleartext HTTP/1.1", ["--http1.1"], cleartext),
        ]
        let expectedDownload = ServerTestFixture.patternBytes(3 << 20)
        for (name, flags, base) in cases {
            let echoed = try ServerTestFixture.curl(flags + ["--data-binary", "@\(file)", "\(base)/echo"])
            XCTAssertEqual(echoed.status, 200, "\(name): \(echoed.stderr)")
            XCTAssertEqual(echoed.body.count, upload.count, name)
            XCTAssertTrue(echoed.body == upload, "\(name): echoed body differs")
            let download = try ServerTestFixture.curl(flags + ["\(base)/bytes/\(3 << 20)"])
            XCTAssertEqual(download.status, 200, name)
            XCTAssertTrue(download.body == expectedDownload, "\(name): downloaded body differs")
        }
    }

    func testChunkedHTTP11RequestBodyIsReassembled() throws {
        let upload = ServerTestFixture.patternBytes(200_000)
        let file = try ServerTestFixture.temporaryFile(upload)
        let result = try ServerTestFixture.curl(["--http1.1", "-H", "Transfer-Encoding: chunked", "--data-binary", "@\(file)",
                                                 "\(cleartext)/echo"])
        XCTAssertEqual(result.status, 200, result.stderr)
        XCTAssertTrue(result.body == upload)
    }

    func testPythonHTTPXClientGetsTheSameAnswerOverHTTP2AndHTTP11() throws {
        let script = """
            import httpx, sys
            for http2 in (True, False):
                with httpx.Client(http2=http2, verify=sys.argv[2]) as c:
                    r = c.post(sys.argv[1] + "/echo", content=b"hello")
                    print(r.http_version, r.status_code, r.text, r.headers["x-request-version"])
            """
        let result = try ProcessRunner.run(Fixtures.python, ["-c", script, tls, Fixtures.caFile])
        XCTAssertEqual(result.stdout, "HTTP/2 200 hello HTTP/2\nHTTP/1.1 200 hello HTTP/1.1\n", result.stderr)
    }
}
