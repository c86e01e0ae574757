import Foundation
import TestSupport
import XCTest

/// Commands leave nothing behind in the system temp (issue 36, item 12): `serve --console` its
/// virtual phones' directory after SIGTERM, `nse` the image it saved when no --tmp was given.
final class LeftoverFilesTests: XCTestCase {
    func testServeConsoleRemovesItsWorkDirectoryOnSIGTERM() throws {
        let server = try ServerProcess(["serve", "--console", "--port", "0", "--h2c-port", "0", "--apns-port", "0", "--quiet",
                                        "--cert", Fixtures.serverCert, "--key", Fixtures.serverKey]) { $0.contains("quick start") }
        defer { server.stop() }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("pushlab-console-\(server.process.processIdentifier)").path
        XCTAssertTrue(FileManager.default.fileExists(atPath: work), "the console's phones keep their files in \(work)")
        server.process.terminate()
        XCTAssertTrue(ServerProcess.poll(timeout: 30) { !server.process.isRunning }, "serve did not stop on SIGTERM")
        XCTAssertEqual(server.exitStatus, 0, server.stop())
        XCTAssertFalse(FileManager.default.fileExists(atPath: work), "\(work) is left behind")
    }

    /// The image really is fetched and saved (from `serve`'s image server), then removed with the
    /// run's own directory; with --tmp it stays where the user asked.
    func testNSEWithoutTmpLeavesNoImageInTheSystemTemp() throws {
        let server = try LabServer()
        defer { server.stop() }
        let dir = Fixtures.temporaryDirectory("nse-tmp")
        defer { try? FileManager.default.removeItem(at: dir) }
        let systemTemp = dir.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: systemTemp, withIntermediateDirectories: true)
        let payload = dir.appendingPathComponent("push.json").path
        let text = try String(contentsOfFile: Fixtures.path("payloads/nse/rich-push.json"), encoding: .utf8)
            .replacingOccurrences(of: "https://localhost:8443", with: server.googleURL)
        try Data(text.utf8).write(to: URL(fileURLWithPath: payload))
        let args = ["nse", payload, "--app", Fixtures.path("payloads/apps/demo.json"), "--ca-file", Fixtures.caFile,
                    "--collector", server.googleURL]
        let env = ProcessInfo.processInfo.environment.merging(["TMPDIR": systemTemp.path]) { $1 }

        let r = try ProcessRunner.pushlab(args, environment: env)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("cio_sdk"), "the image was attached: \(r.stdout)")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: systemTemp.path), [], "nse left files in the system temp")

        let kept = dir.appendingPathComponent("kept")
        let withTmp = try ProcessRunner.pushlab(args + ["--tmp", kept.path], environment: env)
        XCTAssertEqual(withTmp.status, 0, withTmp.stdout + withTmp.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: kept.appendingPathComponent("cio_sdk").path).count, 1)
    }
}
