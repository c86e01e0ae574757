import Foundation

/// Why a test could not run what it needs. Thrown (never an `XCTSkip`), so XCTest counts a
/// failure that shows `description` — the server's own output or how to install the missing part.
public struct TestEnvironmentError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A long-running program (usually `pushlab serve` or `pushlab collector` on port 0) as a real
/// process. Its stdout and stderr are read from the start by two threads into one transcript, so
/// the child never blocks on a full pipe and nothing it prints is lost or read twice. The ports
/// it bound are read from that transcript. `stop()` (SIGINT, the graceful path) waits for the exit
/// and returns the whole transcript; `killHard()` is `kill -9`.
public final class ServerProcess: @unchecked Sendable {
    public let process = Process()
    private let lock = NSLock()
    // Protected by `lock`.
    private var stdoutText = ""
    private var stderrText = ""
    private var stopped: String?
    private let readers = DispatchGroup()

    /// Starts `executable` (default: the built pushlab) and waits at most `timeout` seconds for
    /// `ready(stdout)`. A process that exits or never gets ready throws with everything it printed.
    /// `environment`, when given, is the child's whole environment (nil: this process's own).
    public init(_ arguments: [String], executable: String = Fixtures.pushlabBinary, currentDirectory: URL = Fixtures.root,
                environment: [String: String]? = nil, timeout: TimeInterval = 30, readyWhen ready: (String) -> Bool) throws {
        try Fixtures.requireExecutable(executable)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = currentDirectory
        if let environment { process.environment = environment }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try ProcessRunner.start(process)
        for (pipe, isOut) in [(out, true), (err, false)] {
            readers.enter()
            Thread.detachNewThread { [self] in
                let handle = pipe.fileHandleForReading
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    let text = String(decoding: chunk, as: UTF8.self)
                    lock.withLock { if isOut { stdoutText += text } else { stderrText += text } }
                }
                readers.leave()
            }
        }
        let started = Self.poll(timeout: timeout) { ready(self.stdout) || !self.process.isRunning }
        guard started, ready(stdout) else {
            let transcript = stop()
            throw TestEnvironmentError("\(executable) \(arguments.joined(separator: " ")) did not start within \(Int(timeout)) s "
                                       + "(exit status \(process.terminationStatus)); it printed:\n\(transcript)")
        }
    }

    /// Everything printed on stdout so far (the banner with the bound URLs comes first).
    public var stdout: String { lock.withLock { stdoutText } }
    /// Everything printed on stderr so far.
    public var stderr: String { lock.withLock { stderrText } }
    /// The banner as read at start-up and since (stdout).
    public var banner: String { stdout }

    /// The port in the first stdout line starting with `prefix` (e.g. "APNs: https://127.0.0.1:").
    public func port(after prefix: String) -> Int? {
        stdout.split(separator: "\n").first { $0.hasPrefix(prefix) }
            .flatMap { Int($0.dropFirst(prefix.count).prefix { $0.isNumber }) }
    }

    /// Waits at most `timeout` seconds until `condition(stdout + stderr)` holds.
    @discardableResult
    public func waitForOutput(timeout: TimeInterval = 20, _ condition: (String) -> Bool) -> Bool {
        Self.poll(timeout: timeout) { condition(self.stdout + self.stderr) }
    }

    /// Stops the server with SIGINT (SIGKILL after `grace` seconds), waits for its exit and for
    /// its pipes to close, and returns everything it printed: stdout, then stderr. Calling it
    /// again returns the same transcript.
    @discardableResult
    public func stop(grace: TimeInterval = 15) -> String { stop(signal: SIGINT, grace: grace) }

    /// Stops the server with `signal` (e.g. SIGTERM), SIGKILL after `grace` seconds; as `stop()`.
    @discardableResult
    public func stop(signal: Int32, grace: TimeInterval = 15) -> String {
        if let done = lock.withLock({ stopped }) { return done }
        if process.isRunning { kill(process.processIdentifier, signal) }
        if !Self.poll(timeout: grace, { !self.process.isRunning }) { killGroup(SIGKILL) }
        return finish()
    }

    /// Sends `signal` (e.g. SIGQUIT) to the process without waiting for anything.
    public func send(signal: Int32) {
        if process.isRunning { kill(process.processIdentifier, signal) }
    }

    /// `kill -9`: the process dies at once, without its shutdown path. Returns what it printed.
    @discardableResult
    public func killHard() -> String {
        if let done = lock.withLock({ stopped }) { return done }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        return finish()
    }

    /// The exit status once stopped (a signal number when it died by a signal).
    public var exitStatus: Int32 { process.isRunning ? -1 : process.terminationStatus }
    public var exitedBySignal: Bool { !process.isRunning && process.terminationReason == .uncaughtSignal }

    /// `signal` to the process and what it started (Foundation makes it a process-group leader).
    private func killGroup(_ signal: Int32) {
        let pid = process.processIdentifier
        kill(getpgid(pid) == pid ? -pid : pid, signal)
    }

    private func finish() -> String {
        // Bounded: Foundation reports the exit only once every copy of the child's descriptors is
        // closed, and a process it started may hold one; that one is killed too.
        if !Self.poll(timeout: 10, { !self.process.isRunning }) {
            killGroup(SIGKILL)
            _ = Self.poll(timeout: 10) { !self.process.isRunning }
        }
        // A grandchild holding the pipes open must not hang the suite.
        _ = readers.wait(timeout: .now() + 10)
        return lock.withLock {
            let text = stdoutText + (stderrText.isEmpty ? "" : "\n[stderr]\n" + stderrText)
            stopped = text
            return text
        }
    }

    /// Polls `condition` until it holds or `timeout` seconds pass (`Poll.blocking`).
    public static func poll(timeout: TimeInterval, _ condition: () -> Bool) -> Bool {
        Poll.blocking(timeout: timeout, condition)
    }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
}
