import Foundation
import TestSupport
import XCTest

/// Issue 36 item 4: in a closed pipe (`pushlab … | head -1` after head exits) every command ends
/// the way `cat` or `git log` do — killed by SIGPIPE, status 141 in the shell — quietly: no
/// backtrace, no "Broken pipe" message, no crash (it used to trap in `FileHandle.write`, 132).
final class ClosedPipeTests: XCTestCase {
    private func assertEndsQuietlyBySIGPIPE(_ arguments: [String], errorToo: Bool = false, environment: [String: String]? = nil,
                                            file: StaticString = #filePath, line: UInt = #line) throws {
        try Fixtures.requirePushlab()
        let result = try ClosedPipeRun.run(Fixtures.pushlabBinary, arguments, errorToo: errorToo, environment: environment)
        XCTAssertEqual(result.signal, SIGPIPE, "pushlab \(arguments.joined(separator: " ")): exit status \(result.status.map(String.init) ?? "-"), "
                       + "signal \(result.signal.map(String.init) ?? "-")\n\(result.stderr)", file: file, line: line)
        XCTAssertEqual(result.stderr, "", "nothing on stderr in a closed pipe", file: file, line: line)
    }

    func testValidateRulesEndsBySIGPIPE() throws {
        try assertEndsQuietlyBySIGPIPE(["validate", "--rules"])
        try assertEndsQuietlyBySIGPIPE(["validate", "--rules", "--markdown"])
    }

    func testHelpManAndCompletionsEndBySIGPIPE() throws {
        try assertEndsQuietlyBySIGPIPE(["--help"])
        try assertEndsQuietlyBySIGPIPE(["man"])
        try assertEndsQuietlyBySIGPIPE(["completions", "bash"])
    }

    func testHistoryEndsBySIGPIPE() throws {
        let dir = Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let history = dir.appendingPathComponent("history.sqlite").path
        let server = try LabServer()
        defer { server.stop() }
        let send = try ProcessRunner.pushlab(["send", "apns", "--url", server.apnsURL, "--ca-file", Fixtures.caFile, "--key", Fixtures.apnsKey,
                                              "--team-id", Fixtures.apnsTeamID, "--topic", Fixtures.bundleID, "--token", String(repeating: "ab", count: 32),
                                              "--title", "one", "--history", history])
        XCTAssertEqual(send.status, 0, send.stdout + send.stderr)
        try assertEndsQuietlyBySIGPIPE(["history", "--history", history])
    }

    // `send apns --verbose 2>&1 | head`: stdout and stderr are the same closed pipe.
    func testSendAPNsVerboseWithStderrInTheSamePipeEndsBySIGPIPE() throws {
        let server = try LabServer()
        defer { server.stop() }
        try assertEndsQuietlyBySIGPIPE(["send", "apns", "--url", server.apnsURL, "--ca-file", Fixtures.caFile, "--key", Fixtures.apnsKey,
                                        "--team-id", Fixtures.apnsTeamID, "--topic", Fixtures.bundleID, "--token", String(repeating: "ab", count: 32),
                                        "--title", "one", "--verbose", "--no-history"], errorToo: true)
    }

    // `send apns --tokens FILE --out -`: the results' own writer to stdout ends the same way.
    func testBulkResultsOnStdoutEndBySIGPIPE() throws {
        let dir = Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let tokens = dir.appendingPathComponent("tokens.txt")
        try (0..<200).map { String(format: "%064x", $0) }.joined(separator: "\n").write(to: tokens, atomically: true, encoding: .utf8)
        let server = try LabServer()
        defer { server.stop() }
        try assertEndsQuietlyBySIGPIPE(["send", "apns", "--url", server.apnsURL, "--ca-file", Fixtures.caFile, "--key", Fixtures.apnsKey,
                                        "--team-id", Fixtures.apnsTeamID, "--topic", Fixtures.bundleID, "--tokens", tokens.path,
                                        "--title", "many", "--out", "-", "--no-history"])
    }

    // An error message to a closed stderr ends the same way, not with a crash.
    func testAUsageErrorToAClosedStderrEndsBySIGPIPE() throws {
        try assertEndsQuietlyBySIGPIPE(["validate", "/nonexistent.json"], errorToo: true)
    }

    // QA s12: import-gorush wrote relay.json with FileHandle.write, which trapped on EPIPE (signal 4).
    func testImportGorushToStdoutEndsBySIGPIPE() throws {
        try assertEndsQuietlyBySIGPIPE(["relay", "import-gorush", Fixtures.path("payloads/relay/gorush/sample.yml")])
    }

    // QA s12: the demo and a reproduce lab left their scratch directory in the temp dir when a
    // closed pipe ended them (their `defer` never ran): pushlab-demo-…, pushlab-retainza-….
    func testTheDemoAndReproduceLeaveNoScratchDirectoryInAClosedPipe() throws {
        let tmp = Fixtures.temporaryDirectory("closed-pipe-tmp")
        defer { try? FileManager.default.removeItem(at: tmp) }
        for arguments in [["demo"], ["retainza", "reproduce", "cold-start-open"]] {
            try assertEndsQuietlyBySIGPIPE(arguments, environment: ["TMPDIR": tmp.path])
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: tmp.path), [], "pushlab \(arguments.joined(separator: " ")) left files")
        }
    }
}
