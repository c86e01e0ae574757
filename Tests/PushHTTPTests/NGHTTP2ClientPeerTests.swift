import Foundation
import PushHTTP
import TestSupport
import XCTest

/// NGHTTP2Client against a server it shares no code with: Python's `h2` library
/// (Tests/Peers/h2server.py, h2c prior knowledge), so a fault both ends of pushlab share (one
/// nghttp2 misuse on each side) cannot hide.
final class NGHTTP2ClientPeerTests: XCTestCase {
    private func startPeer() throws -> (ServerProcess, String) {
        let peer = try ServerProcess([Fixtures.path("Tests/Peers/h2server.py")], executable: Fixtures.python) {
            $0.contains("listening on ")
        }
        guard let port = peer.port(after: "listening on ") else {
            throw TestEnvironmentError("the Python h2 peer printed no port: \(peer.banner)")
        }
        return (peer, "http://127.0.0.1:\(port)")
    }

    func testConcurrentRequestsGetTheirOwnAnswersFromPythonH2() async throws {
        let (peer, base) = try startPeer()
        defer { _ = peer.stop() }
        let client = try NGHTTP2Client(configuration: .testing(.h2cPriorKnowledge))
        let bodies = try await withThrowingTaskGroup(of: (Int, String, String?).self) { group in
            for seq in 0..<50 {
                group.addTask {
                    let response = try await client.send(HTTPRequest(method: "POST", url: base + "/item/\(seq)",
                                                                     body: Array(repeating: 0x61, count: seq)))
                    return (seq, response.bodyText, response.headers["x-peer"])
                }
            }
            return try await group.reduce(into: [(Int, String, String?)]()) { $0.append($1) }
        }
        XCTAssertEqual(bodies.count, 50)
        for (seq, body, peerName) in bodies {
            XCTAssertEqual(body, "POST /item/\(seq) \(seq)")
            XCTAssertEqual(peerName, "python-h2")
        }
        XCTAssertEqual(client.stats.connectionsOpened, 1)
        await client.shutdown()
    }

    func testAStreamThePeerResetsFailsAloneAndTheConnectionStays() async throws {
        let (peer, base) = try startPeer()
        defer { _ = peer.stop() }
        let client = try NGHTTP2Client(configuration: .testing(.h2cPriorKnowledge))
        do {
            _ = try await client.send(HTTPRequest(url: base + "/reset"))
            XCTFail("a reset stream returned a response")
        } catch let error as HTTPClientError {
            guard case .protocolError(let why) = error else { return XCTFail("got \(error)") }
            XCTAssertTrue(why.contains("reset the stream") && why.contains("0x2"), why)
        }
        let next = try await client.send(HTTPRequest(url: base + "/after"))
        XCTAssertEqual(next.bodyText, "GET /after 0")
        XCTAssertEqual(client.stats.connectionsOpened, 1)
        XCTAssertEqual(client.stats.requestsFailed, 1)
        await client.shutdown()
    }

    func testAfterThePeersGoAwayTheNextRequestOpensANewConnection() async throws {
        let (peer, base) = try startPeer()
        defer { _ = peer.stop() }
        let client = try NGHTTP2Client(configuration: .testing(.h2cPriorKnowledge))
        let bye = try await client.send(HTTPRequest(url: base + "/goaway"))
        XCTAssertEqual(bye.bodyText, "GET /goaway 0")
        for seq in 0..<3 {
            let response = try await client.send(HTTPRequest(url: base + "/again/\(seq)"))
            XCTAssertEqual(response.bodyText, "GET /again/\(seq) 0")
        }
        XCTAssertEqual(client.stats.connectionsOpened, 2, "one connection before the GOAWAY, one after")
        await client.shutdown()
    }
}
