import Foundation
import TestSupport
import XCTest

/// `pushlab serve` on free ports as a real process, for CLI tests that send to it: its URLs are
/// read from its banner. A `ServerProcess` underneath reads both pipes from the start on its own
/// threads (nothing blocks on `availableData`, nothing fills a pipe), waits for the banner with a
/// deadline, and `stop()` (SIGINT, SIGKILL after a grace period, waited for) ends it.
final class LabServer {
    private let server: ServerProcess
    let apnsURL: String
    let googleURL: String

    var process: Process { server.process }

    /// `environment`, when given, is the server's whole environment.
    init(binary: String = Fixtures.pushlabBinary, extraArguments: [String] = [], currentDirectory: String? = nil,
         environment: [String: String]? = nil) throws {
        server = try ServerProcess(["serve", "--port", "0", "--h2c-port", "0", "--apns-port", "0", "--quiet"] + extraArguments,
                                   executable: binary,
                                   currentDirectory: currentDirectory.map { URL(fileURLWithPath: $0) } ?? Fixtures.root,
                                   environment: environment) { $0.contains("quick start") }
        let text = server.stdout
        func url(after prefix: String) -> String? {
            text.split(separator: "\n").first { $0.hasPrefix(prefix) }
                .flatMap { $0.dropFirst(prefix.count).split(separator: " ").first }.map(String.init)
        }
        guard let apns = url(after: "APNs: "), let google = url(after: "").flatMap({ $0.hasPrefix("https://") ? $0 : nil }) else {
            throw LabServerError(message: "pushlab serve printed no APNs and Google URLs: \(server.stop())")
        }
        apnsURL = apns
        googleURL = google
    }

    /// Stops the server (SIGINT, then waited for); returns everything it printed.
    @discardableResult
    func stop() -> String { server.stop() }

    deinit { stop() }
}

struct LabServerError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
