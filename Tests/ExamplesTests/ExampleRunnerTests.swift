import Foundation
import TestSupport
import XCTest

/// The example runner itself: a broken example must fail, a correct one must pass.
final class ExampleRunnerTests: XCTestCase {
    func testVolatileValuesAreComparedByKind() {
        XCTAssertNil(ExampleOutputMatcher.mismatch(
            expected: ["accepted: apns-id 4b7e2f0e-0c1d-4a55-9a3e-7d7f6b1f2c11 (200, 1 attempt, 212 ms)"],
            actual: ["accepted: apns-id 0a7c9d0e-1111-4a55-9a3e-000000000000 (200, 1 attempt, 3.5 ms)"]))
        XCTAssertNil(ExampleOutputMatcher.mismatch(expected: ["2026-11-29T19:40:02Z  apns  https://127.0.0.1:40117"],
                                                   actual: ["2026-12-01T08:00:00.123Z apns https://127.0.0.1:2197"]))
    }

    func testAnyOtherDifferenceIsAMismatch() {
        XCTAssertNotNil(ExampleOutputMatcher.mismatch(expected: ["accepted: 200"], actual: ["rejected: 400"]))
        XCTAssertNotNil(ExampleOutputMatcher.mismatch(expected: ["a", "b"], actual: ["a"]), "a line shown but not printed")
        XCTAssertNotNil(ExampleOutputMatcher.mismatch(expected: ["a"], actual: ["a", "b"]), "a line printed but not shown, with no …")
    }

    func testAnEllipsisStandsForTextOrLines() {
        XCTAssertNil(ExampleOutputMatcher.mismatch(expected: ["timeline", "…", "done: ok"], actual: ["timeline", "x", "y", "done: ok"]))
        XCTAssertNil(ExampleOutputMatcher.mismatch(expected: ["timeline", "…", "done: ok"], actual: ["timeline", "done: ok"]))
        XCTAssertNil(ExampleOutputMatcher.mismatch(expected: ["error [x] the app uses UIScene; …"], actual: ["error [x] the app uses UIScene; and more"]))
        XCTAssertNotNil(ExampleOutputMatcher.mismatch(expected: ["timeline", "…", "done: ok"], actual: ["timeline", "done: failed"]))
    }

    func testATranscriptSplitsIntoCommandsWithTheirOutputAndExitStatus() throws {
        let file = MarkdownFile(path: "x.md", text: """
            <!-- example: real-services needs your key -->
            ```sh
            pushlab send apns --token <hex>
            ```

            ```sh
            $ pushlab validate a.json \\
                b.json        # exit 1
            a.json: FAILED
            $ pushlab serve --port 0
            https://127.0.0.1:1
            ```
            """)
        let examples = try file.examples()
        XCTAssertEqual(examples.map(\.marker), [.realServices, nil])
        let commands = examples[1].commands
        XCTAssertEqual(commands.count, 2)
        XCTAssertEqual(commands[0].text, "pushlab validate a.json \\\n    b.json        # exit 1")
        XCTAssertEqual(commands[0].expectedStatus, 1)
        XCTAssertEqual(commands[0].expectedOutput, ["a.json: FAILED"])
        XCTAssertEqual(commands[0].line, 7)
        XCTAssertFalse(commands[0].isServer)
        XCTAssertTrue(commands[1].isServer)
        XCTAssertTrue(examples[1].startsEmulator)
    }

    func testAnUnclosedFenceIsFoundWithItsLine() {
        let file = MarkdownFile(path: "x.md", text: "# t\n\n```sh\n$ ls\n\n## next\n")
        guard case .failure(let error) = file.fences() else { return XCTFail("an unclosed fence passed") }
        XCTAssertEqual(error.line, 3)
    }

    func testAnUnknownMarkerIsReported() throws {
        let file = MarkdownFile(path: "x.md", text: "<!-- example: skip -->\n```sh\nls\n```\n")
        XCTAssertNotNil(try file.examples().first?.markerProblem)
    }

    /// End to end in a real lab: the passing block passes; a wrong output, a wrong exit status
    /// and a command that fails are each reported at their line.
    func testTheLabRunsABlockAndReportsEachBrokenCommand() throws {
        let file = MarkdownFile(path: "probe.md", text: """
            ```sh
            $ pushlab validate payloads/apns/rich-push.json
            payloads/apns/rich-push.json: ok — APNs payload, alert push, 437/4096 bytes minified, as sent
            $ curl -s --cacert certs/ca.pem https://localhost:8443/health
            …
            ```

            ```sh
            $ pushlab validate payloads/apns/rich-push.json
            payloads/apns/rich-push.json: FAILED
            $ pushlab validate payloads/invalid/aps.badge.type.json
            …
            ```

            ```sh
            echo clutter > notes-left-behind.txt
            echo fine > results.jsonl
            ```
            """)
        let lab = ExampleLab(pushlabBinary: Fixtures.pushlabBinary, repositoryRoot: Fixtures.root)
        let outcome = try lab.run(try file.examples(), name: "probe.md", timeout: 60)
        XCTAssertEqual(outcome.blocksRun, 3)
        XCTAssertEqual(outcome.commandsRun, 6)
        XCTAssertEqual(outcome.failures.map(\.location).sorted(), ["probe.md", "probe.md:11", "probe.md:9"], outcome.failures.map(\.description).joined(separator: "\n"))
        XCTAssertTrue(outcome.failures.contains { $0.problem.contains("notes-left-behind.txt") }, "an unignored file left behind is reported")
        XCTAssertFalse(outcome.failures.contains { $0.problem.contains("results.jsonl") }, "results.jsonl is in .gitignore")
    }

    /// Issue 36 item 5: a clone under /tmp (with its binary) runs its examples; the lab's private
    /// /tmp used to hide the repository and every doc failed with "the lab did not start".
    func testTheLabRunsForACloneUnderTmp() throws {
        try Fixtures.requirePushlab()
        let clone = URL(fileURLWithPath: "/tmp/pushlab-clone-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: clone) }
        let fm = FileManager.default
        try fm.createDirectory(at: clone.appendingPathComponent(".build/debug"), withIntermediateDirectories: true)
        for item in ["certs", "payloads", ".gitignore"] { try fm.copyItem(atPath: Fixtures.path(item), toPath: clone.appendingPathComponent(item).path) }
        try fm.copyItem(atPath: Fixtures.pushlabBinary, toPath: clone.appendingPathComponent(".build/debug/pushlab").path)
        let initialize = try ProcessRunner.run("/usr/bin/git", ["init", "-q", clone.path])
        XCTAssertEqual(initialize.status, 0, initialize.stderr)
        let file = MarkdownFile(path: "probe.md", text: """
            ```sh
            $ pushlab validate payloads/apns/rich-push.json
            payloads/apns/rich-push.json: ok — APNs payload, alert push, 437/4096 bytes minified, as sent
            $ curl -s --cacert certs/ca.pem https://localhost:8443/images/demo-image.png -o /tmp/image.png -w '%{http_code}\\n'
            200
            $ ls /tmp/image.png
            /tmp/image.png
            ```
            """)
        let lab = ExampleLab(pushlabBinary: clone.appendingPathComponent(".build/debug/pushlab").path, repositoryRoot: clone)
        let outcome = try lab.run(try file.examples(), name: "probe.md", timeout: 60)
        XCTAssertEqual(outcome.commandsRun, 3)
        XCTAssertEqual(outcome.failures.map(\.description), [])
    }

    /// A lab that cannot start says why, by stage: here its directory under /tmp, not bound into
    /// its private /tmp, is hidden — exit 95 and that cause, not "the lab did not start
    /// (private network namespace …)", which used to be said for every cause.
    func testALabHiddenByItsPrivateTmpNamesThatCause() throws {
        let lab = URL(fileURLWithPath: "/tmp/pushlab-lab-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: lab) }
        for dir in ["out", "tmp", "home", "bin"] {
            try FileManager.default.createDirectory(at: lab.appendingPathComponent(dir), withIntermediateDirectories: true)
        }
        let script = lab.appendingPathComponent("examples.sh")
        try ExampleLab.script(for: [], lab: lab.path, keep: []).write(to: script, atomically: true, encoding: .utf8)
        let run = try ProcessRunner.run("/usr/bin/unshare", ["-rnm", "/bin/bash", script.path], timeout: 30)
        XCTAssertEqual(run.status, 95, run.stdout + run.stderr)
        XCTAssertTrue(run.stderr.contains("is hidden by the private /tmp"), run.stderr)
        XCTAssertTrue(ExampleLab.startFailures[95]?.contains("not visible inside its private /tmp") == true)
    }
}
