import Foundation

/// Runs a real program (the pushlab binary, curl, a Python peer) and captures its output.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

/// A program `ProcessRunner.run` had to stop because it did not finish within its timeout.
/// Thrown, so XCTest records a failure that names the program and shows what it printed.
public struct ProcessTimeoutError: Error, CustomStringConvertible {
    public let command: String
    public let timeout: TimeInterval
    /// What happened after the deadline: "ended by SIGTERM", "killed (SIGKILL) 5 s after SIGTERM" …
    public let ending: String
    /// Everything it printed before it was stopped.
    public let stdout: String
    public let stderr: String

    public var description: String {
        "\(command) did not finish within \(Self.seconds(timeout)) s and was \(ending); it printed:\n"
            + "[stdout]\n\(stdout.suffix(8_000))\n[stderr]\n\(stderr.suffix(8_000))"
    }

    static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }
}

public enum ProcessRunner {
    /// Seconds between SIGTERM and SIGKILL when a program overran its timeout.
    public static let killGrace: TimeInterval = 5
    /// Seconds to wait, once the program has exited, for its pipes to close. A grandchild that
    /// still holds them open must not hang the suite: its output is then cut where it was.
    public static let pipeGrace: TimeInterval = 5

    /// Starts `process` with no signal blocked and inside the suite's hermetic environment
    /// (`HermeticEnvironment`). Foundation spawns the child from the calling thread and the child
    /// inherits that thread's signal mask; a libdispatch worker thread
    /// (DispatchQueue.concurrentPerform, async tests) blocks nearly every signal, so a child
    /// started from one — and everything it starts — would never see SIGTERM or SIGINT.
    public static func start(_ process: Process) throws {
        HermeticEnvironment.ensure()
        var none = sigset_t(), previous = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        try process.run()
    }

    /// Runs `executable` with `arguments`, feeding `stdin`, waiting at most `timeout` seconds.
    /// A program still running then gets SIGTERM, SIGKILL `killGrace` seconds later, and the
    /// call throws `ProcessTimeoutError` with everything it printed: a hang is a test failure
    /// that says so, never a hung suite. Every wait here has a deadline.
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String], stdin: String? = nil,
                           environment: [String: String]? = nil, currentDirectory: String? = nil,
                           timeout: TimeInterval = 60) throws -> ProcessResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment {
            HermeticEnvironment.ensure()
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        // Drain both pipes concurrently so a chatty child never blocks on a full pipe; what was
        // read so far stays readable if the program has to be stopped.
        let outBox = OutputBox(), errBox = OutputBox()
        let readers = DispatchGroup()
        try ProcessRunner.start(process)
        for (pipe, box) in [(out, outBox), (err, errBox)] {
            readers.enter()
            Thread.detachNewThread {
                let handle = pipe.fileHandleForReading
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    box.append(chunk)
                }
                readers.leave()
            }
        }
        if let stdin {
            // On its own thread: a child that never reads must not block us past the deadline.
            let writer = input.fileHandleForWriting
            Thread.detachNewThread {
                try? writer.write(contentsOf: Data(stdin.utf8))
                try? writer.close()
            }
        } else {
            try? input.fileHandleForWriting.close()
        }
        var ending: String?
        if exited.wait(timeout: .now() + timeout) == .timedOut {
            // Foundation learns of the exit only when every copy of a descriptor the child got is
            // closed: a process the program started (same process group) may still hold one.
            let pid = process.processIdentifier
            let group = getpgid(pid) == pid ? -pid : pid  // the program and everything it started
            let zombie = Self.hasExited(pid)
            kill(group, SIGTERM)
            if exited.wait(timeout: .now() + killGrace) == .success {
                ending = zombie ? "done, but a process it started still held its output open (ended by SIGTERM)" : "ended by SIGTERM"
            } else {
                kill(group, SIGKILL)
                ending = (zombie ? "done, but a process it started still held its output open; " : "")
                    + "killed (SIGKILL) \(ProcessTimeoutError.seconds(killGrace)) s after SIGTERM"
                _ = exited.wait(timeout: .now() + 10)  // SIGKILL ends it unless the kernel holds it
            }
        }
        let closed = readers.wait(timeout: .now() + pipeGrace) == .success
        // Close our read ends now rather than whenever Foundation lets go of the pipes: the suite runs
        // thousands of programs in one process, and every descriptor left open makes
        // /proc/self/fd longer, which Foundation's Process.run reads (past its buffer) at each start.
        if closed { for handle in [out.fileHandleForReading, err.fileHandleForReading] { try? handle.close() } }
        if let ending {
            throw ProcessTimeoutError(command: ([executable] + arguments).joined(separator: " "), timeout: timeout,
                                      ending: ending, stdout: outBox.text, stderr: errBox.text)
        }
        let pipeNote = closed ? "" : "\n[ProcessRunner: a process it started still holds its output open; output cut here]"
        return ProcessResult(status: process.isRunning ? -1 : process.terminationStatus,
                             stdout: outBox.text, stderr: errBox.text + pipeNote)
    }

    /// True when `pid` has exited and waits to be reaped (a zombie).
    static func hasExited(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }

    /// Runs the built pushlab CLI.
    @discardableResult
    public static func pushlab(_ arguments: [String], stdin: String? = nil, environment: [String: String]? = nil,
                               timeout: TimeInterval = 60) throws -> ProcessResult {
        try run(Fixtures.pushlabBinary, arguments, stdin: stdin, environment: environment, timeout: timeout)
    }
}

/// One pipe's output, appended by its reader thread and read by the caller at any time.
private final class OutputBox: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()  // protected by `lock`
    func append(_ chunk: Data) { lock.withLock { data.append(chunk) } }
    var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
}

/// Kills (SIGKILL) a process a test started itself if it still runs after `seconds`, so a read
/// from its pipe that waits for EOF always ends. `fired` tells the test the watchdog had to act
/// (report it as a failure: the process hung); `cancel()` once the process is done.
public final class ProcessWatchdog: @unchecked Sendable {
    private final class Flag: @unchecked Sendable {
        let lock = NSLock()
        var value = false  // protected by `lock`
    }
    private let flag = Flag()
    private let item: DispatchWorkItem

    public init(_ process: Process, seconds: TimeInterval = 60) {
        nonisolated(unsafe) let target = process
        let flag = self.flag
        item = DispatchWorkItem {
            guard target.isRunning else { return }
            flag.lock.withLock { flag.value = true }
            kill(target.processIdentifier, SIGKILL)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: item)
    }

    public var fired: Bool { flag.lock.withLock { flag.value } }
    public func cancel() { item.cancel() }
    deinit { item.cancel() }
}
