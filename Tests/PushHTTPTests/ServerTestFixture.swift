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

    /// Sends `request` on a plain TCP connection to 127.0.0.1:`port` and reads until the server
    /// closes (or 5 s pass). In-process, so it opens no descriptors of its own that outlive it
    /// (unlike spawning curl, which makes Foundation and dispatch create theirs lazily).
    static func rawExchange(port: Int, _ request: String) -> [UInt8] {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard connectLoopback(fd, port: port) == 0 else { return [] }
        let bytes = Array(request.utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            reply.append(contentsOf: buffer[0..<count])
        }
        return reply
    }

    /// True when a TCP connect to 127.0.0.1:`port` is refused (nothing listens there any more).
    static func isRefusing(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return connectLoopback(fd, port: port) != 0 && errno == ECONNREFUSED
    }

    /// `connect(2)` of `fd` to 127.0.0.1:`port`.
    private static func connectLoopback(_ fd: Int32, port: Int) -> Int32 {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    /// Stops `server` while its handlers are held by `gate`, opening the gate only once the stop
    /// has begun (the listener at `port` refuses connections): what finishes afterwards was
    /// drained by the stop. Returns when the stop has completed.
    static func stopWhileHeld(_ server: HTTPServer, port: Int, gate: Gate) async -> Bool {
        let stopping = Task { await server.stop() }
        let began = await Poll.until(timeout: 20) { isRefusing(port: port) }
        gate.open()
        await stopping.value
        return began
    }

    /// Where each open descriptor points, for a failure message.
    static func describeDescriptors() -> String {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.sorted { (Int($0) ?? 0) < (Int($1) ?? 0) }.map { fd in
            "\(fd)->\((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")) ?? "?")"
        }.joined(separator: " ")
    }

    /// The thread ids of the server event-loop threads ("pushlab-server") alive in this process.
    static func serverThreadIDs() -> Set<String> {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return Set(tasks.filter { task in
            let name = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)
            return name?.hasPrefix("pushlab-server") == true
        })
    }

    /// Starts a server and returns it with the loop threads it started: the "pushlab-server"
    /// threads that appeared since `start` began. Tests run one at a time, so no other server
    /// starts meanwhile; threads of servers stopped earlier may still be exiting and are not
    /// counted, because they are not new.
    static func startCountingThreads(_ router: Router, expecting loops: Int,
                                     configure: (inout HTTPServerConfiguration) -> Void = { _ in }) async throws
        -> (server: HTTPServer, threads: Set<String>) {
        let before = serverThreadIDs()
        let server = try start(router, configure: configure)
        var ours: Set<String> = []
        _ = await Poll.until(timeout: 10) {
            ours = serverThreadIDs().subtracting(before)
            return ours.count >= loops
        }
        return (server, ours)
    }

    /// Which of `threads` are still alive after waiting up to `timeout` seconds for them to exit
    /// (a stopped server's loop thread ends a moment after `stop()` returns).
    static func threadsStillAlive(_ threads: Set<String>, timeout: TimeInterval = 10) async -> Set<String> {
        var alive = threads
        _ = await Poll.until(timeout: timeout) {
            alive = threads.filter { FileManager.default.fileExists(atPath: "/proc/self/task/\($0)") && serverThreadIDs().contains($0) }
            return alive.isEmpty
        }
        return alive
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
