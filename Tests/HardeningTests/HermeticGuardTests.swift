import Foundation
import TestSupport
import XCTest

/// The suite's guard against the machine (Tests/README.md, "The hermetic guard"): a private HOME
/// and XDG directories, none of pushlab's credential or config variables, proxies at a closed
/// port, and — under Tests/tools/run-tests, which `make test` runs — a network namespace where
/// no name but localhost resolves.
final class HermeticGuardTests: XCTestCase {
    func testHomeAndXDGDirectoriesArePrivateAndEmptyOfProfiles() throws {
        HermeticEnvironment.ensure()
        let env = ProcessInfo.processInfo.environment
        let home = try XCTUnwrap(env["HOME"])
        if let user = getpwuid(getuid()), let dir = user.pointee.pw_dir {
            XCTAssertNotEqual(home, String(cString: dir), "the tests must not run in the user's own HOME")
        }
        for variable in ["XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"] {
            XCTAssertTrue(env[variable]?.hasPrefix(home + "/") == true, "\(variable)=\(env[variable] ?? "unset") is not under \(home)")
        }
        for variable in HermeticEnvironment.clearedVariables {
            XCTAssertNil(env[variable], "\(variable) leaks into the tests")
        }
        // A child sees the same: pushlab finds no profile of the machine's user.
        try Fixtures.requirePushlab()
        let list = try ProcessRunner.pushlab(["profile", "list", "--json"])
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertFalse(list.stdout.contains("\"name\""), "a profile leaked in: \(list.stdout)")
    }

    func testProxiesPointAtAClosedLoopbackPort() throws {
        HermeticEnvironment.ensure()
        let proxy = try XCTUnwrap(ProcessInfo.processInfo.environment["HTTP_PROXY"], "HTTP_PROXY is not set by the guard")
        XCTAssertTrue(proxy.hasPrefix("http://127.0.0.1:"), proxy)
        let r = try ProcessRunner.run("/usr/bin/curl", ["-sS", "--max-time", "10", "--proxy", proxy, "http://example.com/"])
        XCTAssertNotEqual(r.status, 0, "the guard's proxy must refuse: \(r.stdout)")
        XCTAssertTrue(r.stderr.contains("127.0.0.1"), r.stderr)
    }

    /// run-tests gives the test process a TMPDIR inside its guard, removed with it: SwiftPM keeps
    /// a lock file named after each path it locks (the private HOME's) in the temporary
    /// directory and never removes it, so with the outer /tmp every run left two behind.
    /// run-tests also fails a run that leaves anything named after its guard outside it.
    func testTemporaryDirectoryIsInsideTheGuard() throws {
        XCTAssertTrue(HermeticEnvironment.underRunTests,
                      "not under Tests/tools/run-tests' guard (PUSHLAB_TEST_GUARD=netns): run the suite with `make test` or Tests/tools/run-tests")
        guard HermeticEnvironment.underRunTests else { return }
        let env = ProcessInfo.processInfo.environment
        let guardDirectory = URL(fileURLWithPath: try XCTUnwrap(env["HOME"])).deletingLastPathComponent().path
        XCTAssertTrue(URL(fileURLWithPath: guardDirectory).lastPathComponent.hasPrefix("pushlab-test-guard."), guardDirectory)
        XCTAssertEqual(env["TMPDIR"], guardDirectory + "/tmp")
        XCTAssertTrue(FileManager.default.temporaryDirectory.path.hasPrefix(guardDirectory + "/tmp"),
                      FileManager.default.temporaryDirectory.path)
        // A child's temporary files land there too.
        let made = try ProcessRunner.run("/usr/bin/mktemp", [])
        XCTAssertEqual(made.status, 0, made.stderr)
        let path = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(path.hasPrefix(guardDirectory + "/tmp/"), path)
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Only run-tests can give a process its own network namespace; run directly (swift test),
    /// this test fails and says so.
    func testNoNameButLocalhostResolves() throws {
        XCTAssertTrue(HermeticEnvironment.underRunTests,
                      "not under Tests/tools/run-tests' guard (PUSHLAB_TEST_GUARD=netns): run the suite with `make test` or Tests/tools/run-tests")
        guard HermeticEnvironment.underRunTests else { return }
        for name in ["api.push.apple.com", "fcm.googleapis.com", "oauth2.googleapis.com", "example.com"] {
            var result: UnsafeMutablePointer<addrinfo>?
            let status = getaddrinfo(name, "443", nil, &result)
            if status == 0 { freeaddrinfo(result) }
            XCTAssertNotEqual(status, 0, "\(name) resolved inside the guard")
        }
        var result: UnsafeMutablePointer<addrinfo>?
        XCTAssertEqual(getaddrinfo("localhost", "443", nil, &result), 0, "localhost must still resolve")
        if result != nil { freeaddrinfo(result) }
        // A send without --url goes to Apple's host: inside the guard it fails at once, loudly.
        try Fixtures.requirePushlab()
        let send = try ProcessRunner.pushlab(["send", "apns", "--key", Fixtures.apnsKey, "--team-id", Fixtures.apnsTeamID,
                                              "--topic", Fixtures.bundleID, "--token", String(repeating: "ab", count: 32),
                                              "--title", "x", "--no-history", "--sandbox", "--retries", "0"], timeout: 60)
        XCTAssertEqual(send.status, 1, send.stdout + send.stderr)
        XCTAssertTrue((send.stdout + send.stderr).contains("could not resolve host api.sandbox.push.apple.com"), send.stdout + send.stderr)
    }
}
