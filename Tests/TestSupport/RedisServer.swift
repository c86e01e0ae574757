import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real `redis-server` for one test: its own free loopback port, its own temp directory
/// (AOF on, so a restart keeps what was written), started as its own process group and
/// stopped with everything it forked.
///
/// Redis cannot listen on port 0, so the port is found by binding a socket to port 0 and
/// closing it; when another process takes the port in between, the start is retried on a
/// fresh one.
public final class RedisServer: @unchecked Sendable {
    public private(set) var port: Int = 0
    public let directory: URL
    private var process: Process?
    private let extraArguments: [String]

    /// `redis://127.0.0.1:PORT/0`.
    public var url: String { "redis://127.0.0.1:\(port)/0" }

    /// Starts the server and waits until it answers PING.
    public init(arguments: [String] = []) throws {
        directory = Fixtures.temporaryDirectory("redis")
        extraArguments = arguments
        var lastError: Error?
        for _ in 0..<5 {
            do {
                try start(port: try Self.freePort())
                return
            } catch {
                lastError = error
            }
        }
        throw lastError ?? RedisServerError(message: "redis-server did not start")
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Stops the server: SIGTERM to its process group (redis writes its AOF and exits), SIGKILL
    /// if it is still there after 5 s. `stop()` on a stopped server does nothing.
    public func stop() {
        guard let process else { return }
        self.process = nil
        let pid = process.processIdentifier
        signalGroup(pid, SIGTERM)
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { usleep(5_000) }
        if process.isRunning { signalGroup(pid, SIGKILL) }
        process.waitUntilExit()
    }

    /// Kills the server with SIGKILL (a crash: no final AOF write).
    public func crash() {
        guard let process else { return }
        self.process = nil
        signalGroup(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Signals the server's process group when it leads one, else the server alone.
    private func signalGroup(_ pid: pid_t, _ signal: Int32) {
        if getpgid(pid) == pid { kill(-pid, signal) } else { kill(pid, signal) }
    }

    /// Starts the server again on the same port and directory (its AOF is read back).
    public func restart() throws {
        stop()
        try start(port: port)
    }

    /// Runs `redis-cli` against this server and returns its output (e.g. `["XLEN", "s"]`).
    @discardableResult
    public func cli(_ arguments: [String]) throws -> String {
        let result = try ProcessRunner.run("/usr/bin/redis-cli", ["-p", String(port)] + arguments, timeout: 10)
        guard result.status == 0 else { throw RedisServerError(message: "redis-cli \(arguments.first ?? ""): \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Lua scripts run since the last `CONFIG RESETSTAT` (from `INFO commandstats`): EVALSHA calls
    /// that ran (a NOSCRIPT answer is a failed call, then the EVAL runs it) plus EVAL calls.
    public func scriptRuns() throws -> Int {
        let stats = try cli(["INFO", "commandstats"])
        func field(_ command: String, _ name: String) -> Int {
            guard let line = stats.split(whereSeparator: \.isNewline).first(where: { $0.hasPrefix("cmdstat_\(command):") }),
                  let value = line.split(separator: ",").first(where: { $0.hasPrefix("\(name)=") || $0.contains(":\(name)=") })
            else { return 0 }
            return Int(value.split(separator: "=").last ?? "") ?? 0
        }
        return field("evalsha", "calls") - field("evalsha", "failed_calls") + field("eval", "calls")
    }

    private func start(port: Int) throws {
        let process = Process()
        // Foundation starts the child as the leader of its own process group, so stop() reaches
        // anything redis-server forks (AOF rewrite, RDB save) with one kill of the group.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-server")
        process.arguments = ["--port", String(port), "--bind", "127.0.0.1",
                             "--dir", directory.path, "--daemonize", "no", "--save", "",
                             "--appendonly", "yes", "--appendfsync", "always",
                             "--logfile", directory.appendingPathComponent("redis.log").path] + extraArguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let log = directory.appendingPathComponent("redis.log")
        try? FileManager.default.removeItem(at: log)  // a restart must not see the last run's "Ready"
        try ProcessRunner.start(process)
        self.process = process
        self.port = port
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if !process.isRunning { break }
            // Our own log says it listens (so a PONG is not from another process on the port).
            let ready = ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("Ready to accept connections")
            if ready && Self.answersPing(port: port) && process.isRunning { return }
            usleep(10_000)
        }
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        stop()
        throw RedisServerError(message: "redis-server on port \(port) did not answer PING: \(text.suffix(400))")
    }

    /// A port that was free a moment ago.
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RedisServerError(message: "socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw RedisServerError(message: "bind() failed") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something on `port` answers `PING` with `+PONG`.
    static func answersPing(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return false }
        let ping = Array("PING\r\n".utf8)
        guard write(fd, ping, ping.count) == ping.count else { return false }
        var buffer = [UInt8](repeating: 0, count: 16)
        let n = read(fd, &buffer, buffer.count)
        return n >= 5 && String(decoding: buffer[0..<5], as: UTF8.self) == "+PONG"
    }
}

public struct RedisServerError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
