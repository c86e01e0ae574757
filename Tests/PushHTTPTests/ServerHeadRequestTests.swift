import Foundation
import PushHTTP
import TestSupport
import XCTest

/// HEAD on a GET route: the GET answer's status and fields, no content (RFC 9110 §9.3.2). The
/// answer is read raw, so a body the server wrongly sends is seen: over HTTP/1.1 from a socket
/// (`curl --head` would stop reading after the fields), over HTTP/2 as DATA frames by `h2probe.py`.
final class ServerHeadRequestTests: XCTestCase {
    func testHeadOverHTTP11SendsTheFieldsAndNoContent() async throws {
        let server = try ServerTestFixture.start(ServerTestFixture.standardRouter())
        let raw = try Self.exchange(port: server.cleartextPort!,
                                    "HEAD /bytes/1000 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        let text = String(decoding: raw, as: UTF8.self)
        let end = try XCTUnwrap(text.range(of: "\r\n\r\n"), "no end of the header section: \(text)")
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 200"), text)
        XCTAssertTrue(text[..<end.lowerBound].lowercased().contains("content-length: 1000"), text)
        XCTAssertEqual(text[end.upperBound...].utf8.count, 0, "content after a HEAD answer's fields: \(text[end.upperBound...].prefix(80))")
        // The same connection form with GET does carry the 1,000 bytes (the check can see a body).
        let get = try Self.exchange(port: server.cleartextPort!, "GET /bytes/1000 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        let getText = String(decoding: get, as: UTF8.self)
        let getEnd = try XCTUnwrap(getText.range(of: "\r\n\r\n"))
        XCTAssertEqual(get.count - getText[..<getEnd.upperBound].utf8.count, 1000)
        await server.stop()
    }

    func testHeadOverHTTP2SendsTheFieldsAndNoDataFrames() async throws {
        let server = try ServerTestFixture.start(ServerTestFixture.standardRouter())
        let run = try ServerTestFixture.h2probe(["head", "127.0.0.1", String(server.cleartextPort!), "/bytes/1000"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], run.stdout)
        XCTAssertEqual((report["responses"] as? [String: Int])?["1"], 200, run.stdout)
        XCTAssertEqual(((report["fields"] as? [String: [String: String]])?["1"])?["content-length"], "1000", run.stdout)
        XCTAssertEqual(report["data_bytes"] as? Int, 0, run.stdout)
        XCTAssertEqual(report["ended"] as? [Int], [1], run.stdout)
        // TLS with ALPN h2, through curl: the fields are there too.
        let head = try ServerTestFixture.curl(["--http2", "--head", "https://localhost:\(server.tlsPort!)/bytes/1000"])
        XCTAssertTrue(head.headers.lowercased().contains("content-length: 1000"), head.headers)
        await server.stop()
    }

    /// Writes `request` to 127.0.0.1:`port` and reads until the server closes the connection.
    private static func exchange(port: Int, _ request: String) throws -> [UInt8] {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard connected == 0 else { throw TestEnvironmentError("connect to 127.0.0.1:\(port): errno \(errno)") }
        let bytes = Array(request.utf8)
        guard write(fd, bytes, bytes.count) == bytes.count else { throw TestEnvironmentError("short write") }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { break }
            answer += buffer[0..<n]
        }
        return answer
    }
}
