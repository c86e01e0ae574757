import Foundation
import TestSupport
import XCTest

/// Tests/tools/summarize-tests, the verdict `make test` ends with (Tests/README.md): a failure
/// of the run itself that run-tests names (`--run-failure`, e.g. files left outside its guard)
/// fails the run like a failed test, and the plain `N passed, N failed` line stays last.
final class RunTestsVerdictTests: XCTestCase {
    private var directory: URL!

    override func setUp() {
        directory = Fixtures.temporaryDirectory("verdict")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
    }

    private func verdict(log: String, _ extra: [String] = []) throws -> (status: Int32, lines: [String]) {
        let logFile = directory.appendingPathComponent("test-log.txt")
        try Data(log.utf8).write(to: logFile)
        let allowList = directory.appendingPathComponent("skip-allowlist.txt")
        try Data("# none\n".utf8).write(to: allowList)
        let r = try ProcessRunner.run("/usr/bin/python3", [Fixtures.path("Tests/tools/summarize-tests"), logFile.path, allowList.path,
                                                           "--swift-test-status", "0"] + extra)
        return (r.status, r.stdout.split(separator: "\n").map(String.init))
    }

    private let onePassed = "Test Case 'SomeTests.testOne' passed (0.010 seconds)\n"

    func testAPassingRunPasses() throws {
        let (status, lines) = try verdict(log: onePassed)
        XCTAssertEqual(status, 0, lines.joined(separator: "\n"))
        XCTAssertEqual(lines.last, "1 passed, 0 failed")
    }

    func testEachRunFailureFailsTheRunAndIsNamed() throws {
        let (status, lines) = try verdict(log: onePassed, ["--run-failure", "the run left files in /tmp: a.lock",
                                                           "--run-failure", "second"])
        XCTAssertEqual(status, 1, lines.joined(separator: "\n"))
        XCTAssertTrue(lines.contains("failed: the run left files in /tmp: a.lock"), lines.joined(separator: "\n"))
        XCTAssertTrue(lines.contains("failed: second"), lines.joined(separator: "\n"))
        XCTAssertEqual(lines.last, "1 passed, 2 failed")
    }

    func testASkipNotOnTheAllowListFails() throws {
        let (status, lines) = try verdict(log: onePassed + "Test Case 'SomeTests.testTwo' skipped (0.001 seconds)\n")
        XCTAssertEqual(status, 1, lines.joined(separator: "\n"))
        XCTAssertEqual(lines.last, "1 passed, 1 failed")
    }
}
