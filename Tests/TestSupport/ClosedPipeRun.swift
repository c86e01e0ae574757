import Foundation

/// How a program ended when what it writes to goes nowhere: its standard output (or output and
/// error together) is a pipe whose reading end was closed before it started, as after
/// `pushlab … | head -1` once head has exited. Deterministic: every write gets EPIPE.
public struct ClosedPipeResult: Sendable {
    /// The signal that ended it, or nil when it exited.
    public var signal: Int32?
    /// Its exit status when it exited.
    public var status: Int32?
    /// What it wrote to standard error (empty when standard error is the closed pipe too).
    public var stderr: String
}

public enum ClosedPipeRun {
    /// Runs `executable` with stdout — and stderr too with `errorToo` (`2>&1 | head`) — on a pipe
    /// nobody reads, waiting at most `timeout` seconds.
    public static func run(_ executable: String, _ arguments: [String], errorToo: Bool = false,
                           environment: [String: String]? = nil, timeout: TimeInterval = 60) throws -> ClosedPipeResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let closed = Pipe(), err = Pipe()
        try closed.fileHandleForReading.close()
        process.standardOutput = closed
        process.standardError = errorToo ? closed : err
        process.standardInput = FileHandle.nullDevice
        let box = ErrorText()
        let reader = DispatchGroup()
        if !errorToo {
            reader.enter()
            Thread.detachNewThread {
                box.data = err.fileHandleForReading.readDataToEndOfFile()
                reader.leave()
            }
        }
        try ProcessRunner.start(process)
        try? closed.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try? err.fileHandleForWriting.close()
        reader.wait()
        let bySignal = process.terminationReason == .uncaughtSignal
        return ClosedPipeResult(signal: bySignal ? process.terminationStatus : nil, status: bySignal ? nil : process.terminationStatus,
                                stderr: String(decoding: box.data, as: UTF8.self))
    }
}

private final class ErrorText: @unchecked Sendable {
    var data = Data()  // written once by the reader thread, read after it left the group
}
