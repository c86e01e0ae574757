import Foundation
import TestSupport
import XCTest

/// `ProcessRunner.run` never hangs the suite: a program past its timeout is stopped (SIGTERM,
/// then SIGKILL) and the run throws a failure that says so and shows what it printed; a
/// grandchild holding the pipes open cannot hold the caller either.
final class ProcessRunnerTimeoutTests: XCTestCase {
    func testAProgramIgnoringSIGTERMIsKilledAndTheTimeoutIsReportedWithItsOutput() throws {
        do {
            let r = try ProcessRunner.run("/bin/sh", ["-c", "trap '' TERM; echo started; echo on-stderr >&2; while :; do sleep 1; done"], timeout: 1)
            XCTFail("a hung program returned: \(r)")
        } catch let timeout as ProcessTimeoutError {
            XCTAssertTrue(timeout.ending.hasPrefix("killed (SIGKILL)"), timeout.ending)
            XCTAssertEqual(timeout.stdout, "started\n")
            XCTAssertEqual(timeout.stderr, "on-stderr\n")
            XCTAssertTrue(timeout.description.contains("did not finish within 1 s"), timeout.description)
        }
    }

    func testAProgramEndedBySIGTERMIsStillATimeout() throws {
        XCTAssertThrowsError(try ProcessRunner.run("/bin/sleep", ["60"], timeout: 1)) { error in
            XCTAssertEqual((error as? ProcessTimeoutError)?.ending, "ended by SIGTERM")
        }
    }

    func testAGrandchildHoldingThePipesDoesNotHoldTheCaller() throws {
        // The shell is done at once; the sleep it left behind keeps its stdout open for 60 s.
        XCTAssertThrowsError(try ProcessRunner.run("/bin/sh", ["-c", "echo done; sleep 60 &"], timeout: 2)) { error in
            let timeout = error as? ProcessTimeoutError
            XCTAssertTrue(timeout?.ending.hasPrefix("done, but a process it started still held its output open") == true, "\(error)")
            XCTAssertEqual(timeout?.stdout, "done\n")
        }
    }
}
