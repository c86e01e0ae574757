import Foundation
import TestSupport
import XCTest

/// Every browser test's Chromium (Tests/Peers/console_browser.py `browser()`, also used by the
/// relay console test and benchmarks/console.sh) stays on loopback: its background services are
/// off or pointed at a closed loopback port, every other host name resolves to nothing, and a run
/// in which Chromium tried an outside host fails naming it. This run opens a page served on
/// 127.0.0.1 (it must load) that fetches one outside host: the guard must fail the run and name
/// that host, and only that host (so Chromium's own start-up tried none).
final class BrowserOfflineGuardTests: XCTestCase {
    func testARunWhoseBrowserTriesAnOutsideHostFailsNamingIt() throws {
        try Fixtures.requireExecutable(Fixtures.python)
        let run = try ProcessRunner.run(Fixtures.python, [Fixtures.path("Tests/Peers/console_browser.py"), "--guard-self-test"], timeout: 120)
        XCTAssertEqual(run.status, 1, run.stdout + run.stderr)
        XCTAssertFalse(run.stderr.contains("did not load"), "a page on 127.0.0.1 must load: \(run.stderr)")
        let line = try XCTUnwrap(run.stderr.split(separator: "\n").first { $0.contains("Chromium tried hosts that are not loopback") },
                                 run.stderr)
        XCTAssertTrue(line.hasSuffix(": pushlab-guard-check.example"), "only the page's outside host, none of Chromium's own: \(line)")
    }
}
