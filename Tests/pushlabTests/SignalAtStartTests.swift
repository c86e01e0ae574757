import Foundation
import TestSupport
import XCTest

/// A server command stopped the moment it prints its first line still shuts down gracefully
/// (exit 0). Scripts and the doc examples send SIGTERM as soon as they see the banner. Before the
/// fix, `serve`, `collector` and `relay` caught signals only after the whole banner, so such a
/// signal either killed them (exit 143 in a shell) or, arriving while the handler was being set
/// up, was dropped and the server ran on until SIGKILL. The window was the time to print the rest
/// of the banner: these tests hit it only on a loaded machine (two loaded `make test` runs failed
/// that way, in docs/gateway.md and NewcomerWalkthroughTests); they guard the order.
final class SignalAtStartTests: XCTestCase {
    private func stopAtFirstLine(_ arguments: [String], signal: Int32, file: StaticString = #filePath, line: UInt = #line) throws {
        let server = try ServerProcess(arguments) { !$0.isEmpty }
        kill(server.process.processIdentifier, signal)
        let transcript = server.stop(grace: 30)
        XCTAssertFalse(server.exitedBySignal, "died of the signal instead of shutting down:\n\(transcript)", file: file, line: line)
        XCTAssertEqual(server.exitStatus, 0, transcript, file: file, line: line)
    }

    func testServeStoppedAtItsFirstLineExitsCleanly() throws {
        for signal in [SIGTERM, SIGINT, SIGTERM] {
            try stopAtFirstLine(["serve", "--port", "0", "--h2c-port", "0", "--apns-port", "0",
                                 "--cert", Fixtures.serverCert, "--key", Fixtures.serverKey], signal: signal)
        }
    }

    func testCollectorStoppedAtItsFirstLineExitsCleanly() throws {
        let dir = Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (i, signal) in [SIGTERM, SIGINT, SIGTERM].enumerated() {
            try stopAtFirstLine(["collector", "--port", "off", "--h2c-port", "0", "--db", dir.path + "/m\(i).sqlite", "--cdp-key", "k1"],
                                signal: signal)
        }
    }
}
