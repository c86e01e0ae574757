import Foundation

/// Runs a real program (the pushlab binary, curl, a Python peer) and captures its output.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

public enum ProcessRunner {
    /// Starts `process` with no signal blocked. Foundation spawns the child from the calling
    /// thread and the child inherits that thread's signal mask; a libdispatch worker thread
    /// (DispatchQueue.concurrentPerform, async tests) blocks nearly every signal, so a child
    /// started from one — and everything it starts — would never see SIGTERM or SIGINT.
    public static func start(_ process: Process) throws {
        var none = sigset_t(), previous = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        try process.run()
    }

    /// Runs `executable` with `arguments`, feeding `stdin`, waiting at most `timeout` seconds.
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String], stdin: String? = nil,
                           environment: [String: String]? = nil, currentDirectory: String? = nil,
                           timeout: TimeInterval = 60) throws -> ProcessResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        // Drain both pipes concurrently so a chatty child never blocks on a full pipe.
        let outBox = DataBox(), errBox = DataBox()
        let group = DispatchGroup()
        for (pipe, box) in [(out, outBox), (err, errBox)] {
            group.enter()
            DispatchQueue.global().async {
                box.data = pipe.fileHandleForReading.readDataToEndOfFile()
                group.leave()
            }
        }
        try ProcessRunner.start(process)
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try? input.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        process.waitUntilExit()
        group.wait()
        return ProcessResult(status: process.terminationStatus,
                             stdout: String(decoding: outBox.data, as: UTF8.self),
                             stderr: String(decoding: errBox.data, as: UTF8.self))
    }

    /// Runs the built pushlab CLI.
    @discardableResult
    public static func pushlab(_ arguments: [String], stdin: String? = nil, environment: [String: String]? = nil,
                               timeout: TimeInterval = 60) throws -> ProcessResult {
        try run(Fixtures.pushlabBinary, arguments, stdin: stdin, environment: environment, timeout: timeout)
    }
}

private final class DataBox: @unchecked Sendable {
    var data = Data()  // written once by the reader thread, read after group.wait()
}
