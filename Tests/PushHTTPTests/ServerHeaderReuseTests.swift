import Foundation
import PushHTTP
import TestSupport
import XCTest

/// The HTTP/2 session reuses the strings of fields repeated from the previous request on the
/// connection; every request must still see exactly its own fields.
final class ServerHeaderReuseTests: XCTestCase {
    func testEachRequestOnOneConnectionSeesItsOwnFieldsAndPath() throws {
        var router = Router()
        router.add("GET", "/fields/{n}") { request in
            let fields = request.headers.filter { $0.name.hasPrefix("x-") }.map { "\($0.name)=\($0.value)" }
            return .now(.text(200, "\(request.path) \(request.connection.id) " + fields.joined(separator: ",") + "\n"))
        }
        let server = try ServerTestFixture.start(router)
        addTeardownBlock { await server.stop() }  // stopped and awaited, not fire-and-forget
        // TLS: curl 7.88 cannot reuse an h2c prior-knowledge connection (docs/transport.md).
        let base = "https://localhost:\(server.tlsPort!)/fields"
        let requests: [([String], String)] = [
            (["x-a: one", "x-b: two"], "1"),
            (["x-a: one", "x-b: three"], "1"),     // same path, one value changed
            (["x-b: two"], "2"),                   // fields shift position
            (["x-a: ONE", "x-b: two", "x-c: "], "2"),
            (["x-a: one", "x-b: two"], "3"),
        ]
        // One curl run, one connection: `--next` starts the next request on it.
        var arguments: [String] = []
        for (index, (fields, n)) in requests.enumerated() {
            if index > 0 { arguments.append("--next") }
            arguments += ["-sS", "--http2", "--cacert", Fixtures.caFile] + fields.flatMap { ["-H", $0.hasSuffix(": ") ? String($0.dropLast(2)) + ";" : $0] }
            arguments.append("\(base)/\(n)")
        }
        let result = try ProcessRunner.run(ServerTestFixture.curlPath, arguments, timeout: 30)
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdout.split(separator: "\n").map { $0.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false) }
        XCTAssertEqual(lines.count, 5, result.stdout)
        XCTAssertEqual(Set(lines.map { $0[1] }).count, 1, "all on one connection: \(result.stdout)")
        XCTAssertEqual(lines.map { String($0[0]) }, ["/fields/1", "/fields/1", "/fields/2", "/fields/2", "/fields/3"])
        XCTAssertEqual(lines.map { String($0[2]) },
                       ["x-a=one,x-b=two", "x-a=one,x-b=three", "x-b=two", "x-a=ONE,x-b=two,x-c=", "x-a=one,x-b=two"])
    }
}
