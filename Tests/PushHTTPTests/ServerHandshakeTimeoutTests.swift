import Foundation
import PushHTTP
import TestSupport
import XCTest

/// `handshakeTimeout`: a connection that never speaks (half-open TCP, a TLS handshake never
/// finished, headers sent a byte at a time) is closed; one that sent its request is not.
final class ServerHandshakeTimeoutTests: XCTestCase {
    private var server: HTTPServer!

    override func setUpWithError() throws {
        server = try ServerTestFixture.start(ServerTestFixture.standardRouter()) { $0.handshakeTimeout = .milliseconds(300) }
    }

    override func tearDown() async throws { await server.stop() }

    func testSilentTCPConnectionIsClosedOnBothListeners() throws {
        for port in [server.boundAddresses!.cleartextPort!, server.boundAddresses!.tlsPort!] {
            let socket = try RawSocket(port: port)
            XCTAssertEqual(socket.readUntilClosed(timeout: 5), .closed([]), "port \(port)")
        }
    }

    func testSlowHeadersAreClosedWithoutAnAnswer() throws {
        let socket = try RawSocket(port: server.boundAddresses!.cleartextPort!)
        socket.send("GET /health HTTP/1.1\r\nHost: localhost\r\nX-Slow: a")
        XCTAssertEqual(socket.readUntilClosed(timeout: 5), .closed([]))
    }

    func testAConnectionThatSentItsRequestOutlivesTheTimeout() throws {
        let socket = try RawSocket(port: server.boundAddresses!.cleartextPort!)
        // A silent connection opened after ours: once the timeout has closed it, ours is older
        // than the handshake timeout too (an event, not a sleep).
        let silent = try RawSocket(port: server.boundAddresses!.cleartextPort!)
        socket.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        XCTAssertTrue(socket.read(until: #""ok"}"#, timeout: 5).contains("200 OK"))
        XCTAssertEqual(silent.readUntilClosed(timeout: 20), .closed([]), "the handshake timeout never closed the silent connection")
        socket.send("GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        guard case .closed(let bytes) = socket.readUntilClosed(timeout: 5) else { return XCTFail("no answer") }
        XCTAssertTrue(String(decoding: bytes, as: UTF8.self).hasPrefix("HTTP/1.1 200"))
    }
}

/// A blocking loopback TCP socket for protocol-level tests.
final class RawSocket {
    enum ReadOutcome: Equatable {
        case closed([UInt8])
        case stillOpen([UInt8])
    }

    private let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }

    deinit { close(fd) }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Reads until the peer closes (EOF or reset) or `timeout` passes.
    func readUntilClosed(timeout: TimeInterval) -> ReadOutcome {
        var received: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            switch readChunk(deadline: deadline) {
            case .some(let chunk) where chunk.isEmpty: return .closed(received)
            case .some(let chunk): received += chunk
            case .none: return .stillOpen(received)
            }
        }
        return .stillOpen(received)
    }

    /// Reads until `marker` appears in what arrived, the peer closes, or `timeout` passes.
    func read(until marker: String, timeout: TimeInterval) -> String {
        var received: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline, !String(decoding: received, as: UTF8.self).contains(marker) {
            guard let chunk = readChunk(deadline: deadline), !chunk.isEmpty else { break }
            received += chunk
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// nil: nothing before the deadline; empty: closed.
    private func readChunk(deadline: Date) -> [UInt8]? {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ms = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
        guard poll(&descriptor, 1, ms) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return n <= 0 ? [] : Array(buffer[0..<n])
    }
}
