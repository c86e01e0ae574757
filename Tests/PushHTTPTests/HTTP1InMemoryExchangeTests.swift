import Foundation
import PushHTTP
import TestSupport
import XCTest

/// The HTTP/1.1 fuzz target's harness (`HTTP1FuzzExchange`: the server's real connection code
/// over an in-memory libevent pair) answers its hand-written seeds as a socket-served server
/// would, so a fuzz run starts from inputs that reach every branch of the parser.
final class HTTP1InMemoryExchangeTests: XCTestCase {
    private func run(_ seed: String) throws -> HTTP1FuzzExchange.Report {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("Fuzz/seeds/FuzzHTTP1/" + seed))))
        return try HTTP1FuzzExchange.run(bytes)
    }

    private func statuses(_ report: HTTP1FuzzExchange.Report) -> [Int] { report.responses.map(\.status) }

    func testPipelinedRequestsAreAnsweredInOrder() throws {
        let report = try run("pipelined")
        XCTAssertEqual(statuses(report), [200, 200, 200])
        XCTAssertEqual(report.responses[1].body, Array("echo:hello".utf8))
        XCTAssertEqual(report.responses[1].header("x-echo"), "3f1c")
        XCTAssertEqual(report.responses[2].body, Array("later\n".utf8))
        XCTAssertFalse(report.closedByServer)
    }

    func testChunkedBodyWrittenFiveBytesAtATime() throws {
        let report = try run("chunked-split")
        XCTAssertEqual(statuses(report), [200])
        XCTAssertEqual(report.responses.first?.body, Array("echo:hello0123456789".utf8))
    }

    func testLaterHandlersHoldBackPipelinedRequestsSentByteByByte() throws {
        let report = try run("later-bytewise")
        XCTAssertEqual(statuses(report), [200, 200, 200])
        XCTAssertEqual(report.responses.map { String(decoding: $0.body, as: UTF8.self) }, ["later\n", "later 3\n", #"{"status":"ok"}"#])
    }

    func testExpectContinueGetsAnInterimResponse() throws {
        XCTAssertEqual(statuses(try run("expect-continue")), [100, 200])
    }

    func testKeepAliveAndClose() throws {
        XCTAssertEqual(statuses(try run("http10-keep-alive")), [200, 200])
        let closed = try run("connection-close")
        XCTAssertEqual(statuses(closed), [200])
        XCTAssertTrue(closed.closedByServer)
    }

    func testHeadThrowingHandlerAndReset() throws {
        let report = try run("head-and-throw")
        // No HEAD route: GET /health answers it (RFC 9110 §9.3.2), its body left out.
        XCTAssertEqual(statuses(report), [200, 500, 200])
        XCTAssertEqual(report.responses[0].body, [], "a HEAD answer has no body")
        let reset = try run("reset")
        XCTAssertEqual(statuses(reset), [])
        XCTAssertTrue(reset.closedByServer)
    }

    func testRefusedRequestsAreAnsweredThenClosed() throws {
        let smuggling = try run("smuggling-cl-te")
        XCTAssertEqual(statuses(smuggling), [400])
        XCTAssertTrue(smuggling.closedByServer)
        XCTAssertEqual(statuses(try run("leading-crlf-405")), [405])
    }

    /// A fuzz input that starts with the HTTP/2 preface switches the connection to HTTP/2: the
    /// server answers with frames (its SETTINGS first), which the HTTP/1.1 oracle is not applied to.
    func testHTTP2PrefaceSwitchesTheConnectionToHTTP2() throws {
        let report = try HTTP1FuzzExchange.run([0] + Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8))
        XCTAssertEqual(report.rawOutput.count >= 9 ? report.rawOutput[3] : nil, 4, "first frame: SETTINGS")
    }

    /// The oracle itself must catch a split header (else the fuzz target could never fail).
    /// The fuzz target serves every input as one more connection to one long-lived server
    /// (`InMemoryServerHost`); each input must get exactly the bytes a server of its own gives,
    /// whatever ran before it (forwards and backwards), and no connection may outlive its input.
    func testOneHostAnswersEachInputAsAServerOfItsOwnWould() throws {
        var inputs: [[UInt8]] = []
        for folder in ["Fuzz/seeds/FuzzHTTP1", "Tests/Corpus/fuzz-regressions/FuzzHTTP1", "Fuzz/corpus/FuzzHTTP1"] {
            let path = Fixtures.path(folder)
            let files = (try? FileManager.default.contentsOfDirectory(atPath: path).sorted()) ?? []
            for file in files.prefix(150) {
                inputs.append([UInt8](try Data(contentsOf: URL(fileURLWithPath: path + "/" + file))))
            }
        }
        XCTAssertGreaterThan(inputs.count, 20)
        let alone = try inputs.map { try HTTP1FuzzExchange.run($0) }
        let host = try HTTP1FuzzExchange.makeHost()
        defer { host.finish() }
        for order in [Array(inputs.indices), inputs.indices.reversed()] {
            for i in order {
                let shared = try HTTP1FuzzExchange.run(inputs[i], host: host)
                XCTAssertEqual(shared.rawOutput, alone[i].rawOutput, "input \(i)")
                XCTAssertEqual(shared.closedByServer, alone[i].closedByServer, "input \(i)")
            }
        }
    }

    /// The fuzz target runs every input over the direct transport (no event-loop iteration per
    /// write) and only some over the pair: both must give the same bytes and the same close for
    /// every seed, regression and kept input, on servers of their own and on one shared host.
    func testDirectTransportAnswersAsThePairDoes() throws {
        var inputs: [[UInt8]] = []
        for folder in ["Fuzz/seeds/FuzzHTTP1", "Tests/Corpus/fuzz-regressions/FuzzHTTP1", "Fuzz/corpus/FuzzHTTP1"] {
            let path = Fixtures.path(folder)
            let files = (try? FileManager.default.contentsOfDirectory(atPath: path).sorted()) ?? []
            for file in files.prefix(300) {
                inputs.append([UInt8](try Data(contentsOf: URL(fileURLWithPath: path + "/" + file))))
            }
        }
        XCTAssertGreaterThan(inputs.count, 20)
        let host = try HTTP1FuzzExchange.makeHost()
        defer { host.finish() }
        var answered = 0
        for (i, input) in inputs.enumerated() {
            let pair = try HTTP1FuzzExchange.run(input, host: nil, transport: .pair)
            for direct in [try HTTP1FuzzExchange.run(input, host: nil, transport: .direct),
                           try HTTP1FuzzExchange.run(input, host: host, transport: .direct)] {
                XCTAssertEqual(direct.rawOutput, pair.rawOutput, "input \(i)")
                XCTAssertEqual(direct.closedByServer, pair.closedByServer, "input \(i)")
            }
            if !pair.rawOutput.isEmpty { answered += 1 }
        }
        XCTAssertGreaterThan(answered, inputs.count / 2, "most inputs get an answer")
    }

    func testResponseStreamCheckerRejectsASplitHeader() {
        let bad = Array("HTTP/1.1 200 OK\r\nx-echo: a\rInjected: 1\r\ncontent-length: 0\r\n\r\n".utf8)
        guard case .failure(let malformed) = HTTP1ResponseStream.parse(bad) else { return XCTFail("accepted \(bad)") }
        XCTAssertTrue(malformed.reason.contains("response splitting"), malformed.description)
        let trailing = Array("HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n".utf8)
        guard case .failure = HTTP1ResponseStream.parse(trailing) else { return XCTFail("accepted bytes after a close") }
    }

    /// The bytes of an HTTP/1.1 response head, exactly: the status line, a handler's fields in
    /// order with CR, LF and NUL in a value written as SP, names that are no token dropped, the
    /// framing fields (any case) dropped for the session's own content-length and close, and no
    /// body for HEAD.
    func testResponseHeadBytes() throws {
        var router = Router()
        let fields: [(String, String)] = [
            ("X-A", "a\rb\nc\u{0}d"), ("Content-Length", "99"), ("TRANSFER-ENCODING", "chunked"), ("Keep-Alive", "x"),
            ("connectioN", "y"), ("bad name", "v"), ("", "v"), ("\u{212A}eep-alive", "v"), ("\u{C4}", "v"),
            ("x-b", " caf\u{E9}\t"), ("content-length2", "1"), ("x-c", "n\u{0}ul"), ("x-d", "l\nf"),
        ]
        for method in ["GET", "HEAD"] {
            router.add(method, "/h") { _ in
                var response = ServerResponse(status: 404, body: Array("body".utf8))
                for (name, value) in fields { response.headers.add(name, value) }
                return .now(response)
            }
        }
        func answer(_ request: String) throws -> String {
            let connection = try InMemoryServerConnection(configuration: HTTP1FuzzExchange.configuration, router: router, transport: .direct)
            connection.send(Array(request.utf8))
            return String(decoding: connection.finish().output, as: UTF8.self)
        }
        let head = "HTTP/1.1 404 Not Found\r\nX-A: a b c d\r\nx-b:  caf\u{E9}\t\r\ncontent-length2: 1\r\nx-c: n ul\r\nx-d: l f\r\ncontent-length: 4\r\n"
        XCTAssertEqual(try answer("GET /h HTTP/1.1\r\n\r\n"), head + "\r\nbody")
        XCTAssertEqual(try answer("HEAD /h HTTP/1.1\r\n\r\n"), head + "\r\n")
        XCTAssertEqual(try answer("GET /h HTTP/1.0\r\n\r\n"), head + "connection: close\r\n\r\nbody")
    }

    /// Each verdict of the fuzz target's oracle (`HTTP1ResponseStream`, which finds line ends and
    /// forbidden bytes with `memchr` and token characters by table): what it accepts, and for
    /// what it refuses, the byte offset and the reason.
    func testResponseStreamCheckerVerdicts() {
        func verdict(_ text: String) -> String {
            switch HTTP1ResponseStream.parse(Array(text.utf8)) {
            case .success(let responses):
                return "ok " + responses.map { "\($0.status):\($0.headers.map { "\($0.name)=\($0.value)" }.joined(separator: ",")):\(String(decoding: $0.body, as: UTF8.self))" }
                    .joined(separator: " ")
            case .failure(let malformed):
                return "\(malformed.offset) \(malformed.reason)"
            }
        }
        let cases: [(String, String)] = [
            ("", "ok "),
            ("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-A:\t v \r\n\r\nokHTTP/1.1 100 Continue\r\n\r\n",
             "ok 200:Content-Length=2,X-A=v :ok 100::"),
            // A HEAD answer: the content-length of a body that is not there.
            ("HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nHTTP/1.1 204 No\r\nCONTENT-LENGTH: 0\r\n\r\n", "ok 200:content-length=5: 204:CONTENT-LENGTH=0:"),
            ("HTTP/1.1 200 OK\r\ncontent-length: 1\r\nConnection: Close\r\n\r\nxy", "58 bytes after a response that said connection: close"),
            // Only the first connection field counts.
            ("HTTP/1.1 200 OK\r\ncontent-length: 1\r\nconnection: keep-alive\r\nconnection: close\r\n\r\nxHTTP/1.1 100 C\r\n\r\n",
             "ok 200:content-length=1,connection=keep-alive,connection=close:x 100::"),
            ("HTTP/1.1 200 OK\r\ncontent-length: 1\r\ncontent-length: 1\r\n\r\nx", "57 a final response needs exactly one valid content-length"),
            ("HTTP/1.1 200 OK\r\n\r\n", "19 a final response needs exactly one valid content-length"),
            ("HTTP/1.1 200 OK\r\ncontent-length: x\r\n\r\n", "38 a final response needs exactly one valid content-length"),
            ("HTTP/1.1 200 OK\r\ncontent-length: 9\r\n\r\nshort", "38 body shorter than its content-length 9"),
            ("HTTP/1.1 200 OK\r\n\ncontent-length: 0\r\n\r\n", "17 bad field line '\ncontent-length: 0'"),
            ("HTTP/1.1 200 OK\r\nx: a\nb\r\ncontent-length: 0\r\n\r\n", "21 control byte 10 in a field value (response splitting)"),
            ("HTTP/1.1 200 OK\r\nx: a\0b\r\ncontent-length: 0\r\n\r\n", "21 control byte 0 in a field value (response splitting)"),
            ("HTTP/1.1 200 OK\r\nx: a\rb\0\nc\r\ncontent-length: 0\r\n\r\n", "21 control byte 13 in a field value (response splitting)"),
            ("HTTP/1.1 200 OK\r\nx y: a\r\n\r\n", "17 bad field line 'x y: a'"),
            ("HTTP/1.1 200 OK\r\n: a\r\n\r\n", "17 bad field line ': a'"),
            ("HTTP/1.1 200 OK\r\nx(: a\r\n\r\n", "17 bad field line 'x(: a'"),
            ("HTTP/1.1 200 OK\r\nx!#$%&'*+-.^_`|~9Z: a\r\ncontent-length: 0\r\n\r\n", "ok 200:x!#$%&'*+-.^_`|~9Z=a,content-length=0:"),
            ("HTTP/1.1 200 O\0K\r\ncontent-length: 0\r\n\r\n", "14 control byte 0 in the status line"),
            ("HTTP/1.1 200 O\rK\r\ncontent-length: 0\r\n\r\n", "14 control byte 13 in the status line"),
            ("HTTP/1.1 2x0 OK\r\n", "0 bad status line 'HTTP/1.1 2x0 OK'"),
            ("HTTP/1.1 200 OK\n", "0 status line not terminated by CRLF"),
            ("HTTP/1.1 200 OK\r", "0 status line not terminated by CRLF"),
            ("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n", "36 header section not terminated by CRLF"),
            ("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r", "36 header section not terminated by CRLF"),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(verdict(text), expected, text.debugDescription)
        }
    }
}
