import XCTest
import TestSupport

/// The command-line surface, run as a real process.
final class CLITests: XCTestCase {
    func testHelpListsCommandsAndExitsZero() throws {
        let r = try ProcessRunner.pushlab(["--help"])
        XCTAssertEqual(r.status, 0)
        XCTAssertTrue(r.stdout.contains("usage: pushlab <command>"))
        XCTAssertTrue(r.stdout.contains("serve"))
    }

    func testVersion() throws {
        let r = try ProcessRunner.pushlab(["--version"])
        XCTAssertEqual(r.status, 0)
        XCTAssertTrue(r.stdout.hasPrefix("pushlab "))
    }

    func testUnknownCommandIsUsageError() throws {
        let r = try ProcessRunner.pushlab(["frobnicate"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("unknown command 'frobnicate'"))
    }

    func testUnknownOptionSuggestsTheNearestOne() throws {
        let r = try ProcessRunner.pushlab(["serve", "--prot", "1"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("Did you mean --port?"), r.stderr)
    }

    func testCommandHelpIsGeneratedFromDeclarations() throws {
        let r = try ProcessRunner.pushlab(["serve", "--help"])
        XCTAssertEqual(r.status, 0)
        XCTAssertTrue(r.stdout.contains("usage: pushlab serve"))
        XCTAssertTrue(r.stdout.contains("--port PORT"))
    }
}
