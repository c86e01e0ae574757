import Foundation
import PushHTTP
import TestSupport
import XCTest

/// The HTTP/2 session reuses its last request's route while method and path repeat
/// (`LastRoute`), and lays out small answers with a body on the stack (`HeaderBlock.withSmallBlock`
/// with a content length). Every request must still get the answer its own method and path
/// route to, and every body its exact length, whichever path built the fields.
final class ServerRouteReuseTests: XCTestCase {
    func testEachRequestOnOneConnectionIsRoutedByItsOwnMethodAndPath() throws {
        var router = Router()
        router.add("POST", "/d/{token}") { request in
            .now(.text(200, "\(request.method) \(request.path) \(request.pathParameters["token"] ?? "-") \(request.connection.id)\n"))
        }
        router.add("GET", "/g/{p}") { request in
            .now(.text(200, "\(request.method) \(request.path) \(request.pathParameters["p"] ?? "-") \(request.connection.id)\n"))
        }
        router.add("POST", "/lit") { request in .now(.text(200, "lit \(request.pathParameters.count) \(request.connection.id)\n")) }
        let server = try ServerTestFixture.start(router)
        addTeardownBlock { await server.stop() }
        // (method, path, expected answer without the connection id)
        let requests: [(String, String, String)] = [
            ("POST", "/d/aaa", "POST /d/aaa aaa"),
            ("POST", "/d/aaa", "POST /d/aaa aaa"),       // the same method and path: the reused route
            ("POST", "/d/bbb", "POST /d/bbb bbb"),       // same route, another parameter
            ("GET", "/d/bbb", "GET is not allowed on /d/bbb"),  // same path, another method
            ("POST", "/d/bbb?x=1", "POST /d/bbb bbb"),   // the query is not part of the path
            ("GET", "/g/bbb", "GET /g/bbb bbb"),
            ("POST", "/lit", "lit 0"),
            ("POST", "/nothing", "no route for POST /nothing"),
            ("POST", "/d/aaa", "POST /d/aaa aaa"),
        ]
        // TLS: curl 7.88 cannot reuse an h2c prior-knowledge connection (docs/transport.md).
        // One curl run, one connection: `--next` starts the next request on it.
        var arguments: [String] = []
        for (index, (method, path, _)) in requests.enumerated() {
            if index > 0 { arguments.append("--next") }
            arguments += ["-sS", "--http2", "--cacert", Fixtures.caFile, "-X", method, "https://localhost:\(server.tlsPort!)\(path)"]
        }
        let result = try ProcessRunner.run(ServerTestFixture.curlPath, arguments, timeout: 30)
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, requests.count, result.stdout)
        let routed = lines.filter { $0.hasPrefix("POST /d/") || $0.hasPrefix("GET /g/") || $0.hasPrefix("lit ") }
        XCTAssertEqual(Set(routed.map { $0.split(separator: " ").last! }).count, 1, "all on one connection: \(result.stdout)")
        for (line, (method, path, expected)) in zip(lines, requests) {
            XCTAssertTrue(line == expected || line.hasPrefix(expected + " "), "\(method) \(path): \(line), expected \(expected)")
        }
    }

    func testAnswersWithABodyCarryTheirExactLengthWhateverBuildsTheirFields() throws {
        var router = Router()
        // /len/<body bytes>/<extra fields>[/declared]: `declared` sets content-length itself.
        router.add("GET", "/len/{n}/{fields}/{declared}") { request in
            let n = Int(request.pathParameters["n"] ?? "") ?? 0, fields = Int(request.pathParameters["fields"] ?? "") ?? 0
            var response = ServerResponse(status: 200, body: ServerTestFixture.patternBytes(n))
            for k in 0..<fields { response.headers.add("x-f\(k)", "value \(k)") }
            if request.pathParameters["declared"] == "yes" { response.headers.set("Content-Length", String(n)) }
            return .now(response)
        }
        let server = try ServerTestFixture.start(router)
        addTeardownBlock { await server.stop() }
        // 6 extra fields still fit the stack block with content-length; 7 take the HeaderBlock path.
        for n in [1, 9, 10, 99, 100, 999, 1000, 12345] {
            for fields in [0, 1, 6, 7] {
                for declared in ["no", "yes"] {
                    let label = "\(n) bytes, \(fields) fields, declared \(declared)"
                    let answer = try ServerTestFixture.curl(["--http2", "https://localhost:\(server.tlsPort!)/len/\(n)/\(fields)/\(declared)"])
                    XCTAssertEqual(answer.exitStatus, 0, "\(label): \(answer.stderr)")
                    XCTAssertEqual(answer.status, 200, label)
                    XCTAssertEqual(answer.body, ServerTestFixture.patternBytes(n), label)
                    let lengths = answer.headers.split(separator: "\r\n").filter { $0.lowercased().hasPrefix("content-length:") }
                    XCTAssertEqual(lengths, ["content-length: \(n)"], "\(label): \(answer.headers)")
                    for k in 0..<fields { XCTAssertTrue(answer.headers.contains("x-f\(k): value \(k)\r\n"), "\(label): \(answer.headers)") }
                }
            }
        }
    }
}
