import Foundation
import TestSupport

/// A long-running `pushlab` command (e.g. `collector` on port 0) as a real process, its stdout
/// read line by line as it arrives (the first line names the bound URL). Tests stop it with
/// `interrupt()` (SIGINT, the graceful path) and `defer { terminate() }` in case they fail first.
final class RunningPushlab {
    let process = Process()
    private let stdout: FileHandle
    private var buffer = Data()

    init(_ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: Fixtures.pushlabBinary)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        stdout = out.fileHandleForReading
        try process.run()
    }

    /// The next line of stdout, without its newline; nil once stdout is closed.
    func nextLine() -> String? {
        while true {
            if let nl = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[buffer.startIndex..<nl], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...nl)
                return line
            }
            let chunk = stdout.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }

    /// Sends SIGINT and waits for the exit; returns the exit status.
    @discardableResult
    func interrupt() -> Int32 {
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        return process.terminationStatus
    }

    func terminate() { if process.isRunning { process.terminate() } }
}
