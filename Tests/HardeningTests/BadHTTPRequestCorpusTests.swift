import Foundation
import TestSupport
import XCTest

/// One bad HTTP request to a server, read from `Tests/Corpus/<surface>/manifest.json`.
struct HTTPCase: Decodable {
    var name: String
    /// `apns`, `google` (the gateway's two hosts) or `collector`.
    var host: String
    var method: String
    var path: String
    var headers: [String]?
    var body: String?
    /// A body of this many bytes of `x` instead of `body` (oversized requests).
    var bodySize: Int?
    var status: Int
    /// Substrings the response body must contain (the reason, and where the server gives one, the fix).
    var response: [String]
}

/// The bad-request corpus sent with curl (an independent client, HTTP/2 over TLS) to a real
/// `pushlab serve` and `pushlab collector` process: each gets its 4xx and its reason, and the
/// servers are still up and healthy afterwards.
final class BadHTTPRequestCorpusTests: XCTestCase {
    override func setUpWithError() throws {
        try Fixtures.requirePushlab()
    }

    func testGatewayRequests() throws {
        let server = try ServerProcess(["serve", "--port", "0", "--h2c-port", "0", "--apns-port", "0"]) { $0.contains("quick start") || $0.contains("device(s)") }
        defer { server.stop() }
        let google = "https://127.0.0.1:\(try XCTUnwrap(server.port(after: "https://127.0.0.1:"), server.banner))"
        let apns = "https://127.0.0.1:\(try XCTUnwrap(server.port(after: "APNs: https://127.0.0.1:"), server.banner))"
        let values = ["{apnsJWT}": try PeerCredentials.apnsJWT(),
                      "{fcmAccessToken}": try PeerCredentials.fcmAccessToken(tokenURL: google + "/token")]
        try run("gateway-http", bases: ["apns": apns, "google": google], values: values)
        XCTAssertEqual(try curl(["\(google)/health"]).body, #"{"status":"ok"}"#, "the gateway survives the corpus")
    }

    func testCollectorRequests() throws {
        let dir = Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try ServerProcess(["collector", "--port", "0", "--h2c-port", "off", "--cdp-key", "good-key",
                                        "--legacy-key", "site1:apikey1", "--db", dir.appendingPathComponent("c.sqlite").path]) {
            $0.contains("storing metrics")
        }
        let base = "https://127.0.0.1:\(try XCTUnwrap(server.port(after: "https://127.0.0.1:"), server.banner))"
        func basic(_ s: String) -> String { Data(s.utf8).base64EncodedString() }
        try run("collector-http", bases: ["collector": base],
                values: ["{cdpBasic}": basic("good-key:"), "{wrongBasic}": basic("wrong-key:"),
                         "{legacyBasic}": basic("site1:apikey1"), "{legacyWrongBasic}": basic("site1:wrong")])
        let log = server.stop()
        // The collector's log names each rejection but never the credentials it was sent.
        XCTAssertTrue(log.contains("unknown_credentials"), log)
        for secret in ["wrong-key", basic("wrong-key:"), "apikey1", basic("site1:wrong")] {
            XCTAssertFalse(log.contains(secret), "the collector log echoes a credential: \(secret)\n\(log)")
        }
    }

    private func run(_ surface: String, bases: [String: String], values: [String: String]) throws {
        let cases = try Corpus.load(surface, as: HTTPCase.self)
        XCTAssertFalse(cases.isEmpty)
        let tmp = Fixtures.temporaryDirectory("http-corpus")
        defer { try? FileManager.default.removeItem(at: tmp) }
        func expand(_ s: String) -> String {
            values.reduce(s.replacingOccurrences(of: "{token}", with: Corpus.token)) { $0.replacingOccurrences(of: $1.key, with: $1.value) }
        }
        for c in cases {
            var args = ["-X", c.method]
            for h in c.headers ?? [] { args += ["-H", expand(h)] }
            if let size = c.bodySize {
                let file = tmp.appendingPathComponent("\(size).bin")
                if !FileManager.default.fileExists(atPath: file.path) {
                    try Data(repeating: UInt8(ascii: "x"), count: size).write(to: file)
                }
                args += ["--data-binary", "@\(file.path)"]
            } else if let body = c.body {
                let file = tmp.appendingPathComponent("body")
                try Data(body.utf8).write(to: file)
                args += ["--data-binary", "@\(file.path)"]
            }
            let base = try XCTUnwrap(bases[c.host], c.host)
            let r = try curl(args + [base + expand(c.path)])
            let label = "\(surface)/\(c.name): \(c.method) \(c.path) → \(r.status) \(r.body.prefix(600))"
            XCTAssertEqual(r.status, c.status, label)
            for needle in c.response where !r.body.contains(needle) { XCTFail("'\(needle)' missing from \(label)") }
        }
    }

    private func curl(_ args: [String]) throws -> (status: Int, body: String) {
        let marker = "\n@@status="
        let r = try ProcessRunner.run("/usr/bin/curl", ["-s", "--http2", "--cacert", Fixtures.caFile, "-w", "\(marker)%{http_code}"] + args)
        guard let range = r.stdout.range(of: marker, options: .backwards) else { return (0, r.stdout + r.stderr) }
        return (Int(r.stdout[range.upperBound...]) ?? 0, String(r.stdout[..<range.lowerBound]))
    }
}
