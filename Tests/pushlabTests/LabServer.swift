import Foundation
import TestSupport
import XCTest

/// `pushlab serve` on free ports as a real process, for CLI tests that send to it: its URLs are
/// read from its first lines; it is stopped (SIGINT, then waited for) by `stop()`, and a
/// watchdog ends it if a test forgets or hangs.
final class LabServer {
    let process = Process()
    let apnsURL: String
    let googleURL: String

    init(binary: String = Fixtures.pushlabBinary, extraArguments: [String] = [], currentDirectory: String? = nil,
         environment: [String: String]? = nil) throws {
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["serve", "--port", "0", "--h2c-port", "0", "--apns-port", "0", "--quiet"] + extraArguments
        if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
        if let environment { process.environment = environment }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let process = self.process
        DispatchQueue.global().asyncAfter(deadline: .now() + 120) { if process.isRunning { process.terminate() } }
        var text = ""
        let deadline = Date().addingTimeInterval(30)
        while !text.contains("quick start"), Date() < deadline {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        func url(after prefix: String) -> String? {
            text.split(separator: "\n").first { $0.hasPrefix(prefix) }
                .flatMap { $0.dropFirst(prefix.count).split(separator: " ").first }.map(String.init)
        }
        guard let apns = url(after: "APNs: "), let google = url(after: "") .flatMap({ $0.hasPrefix("https://") ? $0 : nil }) else {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw LabServerError(message: "pushlab serve did not start (status \(process.terminationStatus)): \(text)\(errors)")
        }
        apnsURL = apns
        googleURL = google
    }

    func stop() {
        if process.isRunning { process.interrupt() }
        process.waitUntilExit()
    }

    deinit { stop() }
}

struct LabServerError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
