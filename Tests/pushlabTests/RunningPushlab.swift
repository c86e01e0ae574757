import Foundation
import TestSupport

/// A long-running `pushlab` command (e.g. `collector` on port 0) as a real process, its stdout
/// read line by line as it arrives (the first line names the bound URL). Reading never blocks
/// for ever: `nextLine` waits at most `timeout` seconds. Tests stop it with `interrupt()` (SIGINT,
/// the graceful path) and `defer { terminate() }` in case they fail first.
final class RunningPushlab {
    private let server: ServerProcess
    private var consumed = 0  // characters of stdout already returned as lines

    init(_ arguments: [String]) throws {
        server = try ServerProcess(arguments) { $0.contains("\n") }
    }

    var process: Process { server.process }

    /// The next line of stdout, without its newline; nil once the process has exited and every
    /// line was read, or when no line came within `timeout` seconds.
    func nextLine(timeout: TimeInterval = 20) -> String? {
        var line: String?
        _ = ServerProcess.poll(timeout: timeout) {
            let text = server.stdout
            let rest = text.dropFirst(consumed)
            if let nl = rest.firstIndex(of: "\n") {
                line = String(rest[rest.startIndex..<nl])
                consumed += rest.distance(from: rest.startIndex, to: nl) + 1
                return true
            }
            return !server.process.isRunning && server.stdout.count == text.count
        }
        return line
    }

    /// Sends SIGINT and waits for the exit; returns the exit status.
    @discardableResult
    func interrupt() -> Int32 {
        server.stop()
        return server.exitStatus
    }

    func terminate() { server.killHard() }
}
