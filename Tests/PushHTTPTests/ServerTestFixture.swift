import Foundation
import PushHTTP
import TestSupport
import XCTest

/// Starts servers on port 0 for the server tests and drives the real `curl` binary at them.
enum ServerTestFixture {
    static let curlPath = "/usr/bin/curl"

    /// A started server with both listeners (TLS with the dev certificate, and cleartext).
    static func start(_ router: Router, configure: (inout HTTPServerConfiguration) -> Void = { _ in }) throws -> HTTPServer {
        var configuration = HTTPServerConfiguration(tlsPort: 0, cleartextPort: 0, certificateFile: Fixtures.serverCert,
                                                    privateKeyFile: Fixtures.serverKey)
        configure(&configuration)
        let server = HTTPServer(configuration: configuration, router: router)
        try server.start()
        return server
    }

    /// A router with the routes most tests use.
    static func standardRouter() -> Router {
        var router = Router()
        router.add("GET", "/health") { _ in .now(.json(200, #"{"status":"ok"}"#)) }
        router.add("POST", "/echo") { request in
            var response = ServerResponse(status: 200, body: request.body)
            response.headers.set("x-request-version", request.version.rawValue)
            response.headers.set("x-request-bytes", String(request.body.count))
            return .now(response)
        }
        router.add("GET", "/bytes/{count}") { request in
            let count = Int(request.pathParameters["count"] ?? "") ?? 0
            return .now(ServerResponse(status: 200, body: patternBytes(count)))
        }
        return router
    }

    /// Deterministic, non-repeating-looking bytes so a shifted or truncated body is caught.
    static func patternBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBufferPointer { buffer in
            for index in 0..<count { buffer[index] = UInt8(truncatingIfNeeded: index &* 31 &+ index >> 8) }
        }
        return bytes
    }

    struct CurlResult {
        var status: Int
        var version: String
        var body: [UInt8]
        var headers: String
        var exitStatus: Int32
        var stderr: String
        var bodyText: String { String(decoding: body, as: UTF8.self) }
    }

    /// Runs curl with `arguments` (URL included), trusting the dev CA.
    static func curl(_ arguments: [String], timeout: TimeInterval = 30) throws -> CurlResult {
        let directory = Fixtures.temporaryDirectory("curl")
        defer { try? FileManager.default.removeItem(at: directory) }
        let bodyFile = directory.appendingPathComponent("body").path
        let headerFile = directory.appendingPathComponent("headers").path
        let result = try ProcessRunner.run(curlPath, ["-sS", "--cacert", Fixtures.caFile, "-o", bodyFile, "-D", headerFile,
                                                      "-w", "%{http_code} %{http_version}", "--max-time", "20"] + arguments,
                                           timeout: timeout)
        let parts = result.stdout.split(separator: " ")
        return CurlResult(status: parts.first.flatMap { Int($0) } ?? 0,
                          version: parts.count > 1 ? String(parts[1]) : "",
                          body: (try? Array(Data(contentsOf: URL(fileURLWithPath: bodyFile)))) ?? [],
                          headers: (try? String(contentsOfFile: headerFile, encoding: .utf8)) ?? "",
                          exitStatus: result.status, stderr: result.stderr)
    }

    /// Writes `bytes` to a temporary file for `curl --data-binary @file`.
    static func temporaryFile(_ bytes: [UInt8]) throws -> String {
        let url = Fixtures.temporaryDirectory("body").appendingPathComponent("data")
        try Data(bytes).write(to: url)
        return url.path
    }

    /// Runs `Tests/Peers/h2probe.py` (a raw Python `h2` client) with `arguments`.
    static func h2probe(_ arguments: [String], timeout: TimeInterval = 30) throws -> ProcessResult {
        try ProcessRunner.run(Fixtures.python, [Fixtures.path("Tests/Peers/h2probe.py")] + arguments, timeout: timeout)
    }

    /// The number of open file descriptors of this process.
    static func openFileDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }

    /// Where each open descriptor points, for a failure message.
    static func describeDescriptors() -> String {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.sorted { (Int($0) ?? 0) < (Int($1) ?? 0) }.map { fd in
            "\(fd)->\((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")) ?? "?")"
        }.joined(separator: " ")
    }

    /// The number of server event-loop threads ("pushlab-server") alive in this process.
    static func serverThreadCount() -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter { task in
            let name = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)
            return name?.hasPrefix("pushlab-server") == true
        }.count
    }

    /// Runs blocking work (a curl process) on a plain thread, not the cooperative pool, so
    /// `.later` handlers under test still find a pool thread.
    static func inBackground<T: Sendable>(_ work: @escaping @Sendable () throws -> T) -> Task<T, Error> {
        Task {
            try await withCheckedThrowingContinuation { continuation in
                Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
            }
        }
    }
}
