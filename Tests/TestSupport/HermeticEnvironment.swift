import Foundation

/// The suite's guard against the machine it runs on (Tests/README.md, "The hermetic guard").
/// `Tests/tools/run-tests` (what `make test` runs) sets it up for the whole test process: a
/// private network namespace (loopback only), a private HOME, XDG directories and TMPDIR, no
/// credential variables, proxies at a closed port, and `PUSHLAB_TEST_GUARD=netns`.
///
/// A test process started some other way (`swift test --filter …`) gets the part a process can
/// give itself: `ensure()`, called before every child `ProcessRunner` or `ServerProcess`
/// starts, points HOME and the XDG directories at a private directory of this process (removed
/// when it exits) and clears the same variables, so no user profile, history or saved push
/// leaks into a test.
public enum HermeticEnvironment {
    /// The variables pushlab takes credentials or its configuration from; never inherited.
    public static let clearedVariables = ["PUSHLAB_CONFIG", "PUSHLAB_HOME", "PUSHLAB_CONSOLE_TOKEN",
                                          "GOOGLE_APPLICATION_CREDENTIALS", "APNS_KEY_PATH", "APNS_KEY_ID",
                                          "APNS_TEAM_ID", "APNS_TOPIC", "XDG_CONFIG_DIRS", "XDG_DATA_DIRS",
                                          // They switch pushlab's transport to libcurl (HTTPTransports.proxyVariables);
                                          // tests of proxying set them for their own child.
                                          "http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]

    /// True when run-tests' guard (network namespace included) is around this process.
    public static var underRunTests: Bool { ProcessInfo.processInfo.environment["PUSHLAB_TEST_GUARD"] == "netns" }

    /// The private home of this test process (run-tests' one, or the one `ensure()` made).
    public static var home: String { ensure(); return ProcessInfo.processInfo.environment["HOME"] ?? "" }

    /// Makes sure this process's environment is the guarded one (once; cheap afterwards).
    public static func ensure() { _ = installed }

    private static let installed: Bool = {
        if underRunTests { return true }
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("pushlab-test-home-\(getpid())-\(UUID().uuidString)")
        // Removed when the test process exits (XCTest ends with exit()), as run-tests removes its guard.
        privateBase = base.path
        atexit { HermeticEnvironment.removePrivateBase() }
        let home = base.appendingPathComponent("home")
        let dirs = ["XDG_CONFIG_HOME": ".config", "XDG_DATA_HOME": ".local/share",
                    "XDG_STATE_HOME": ".local/state", "XDG_CACHE_HOME": ".cache"]
        for (variable, relative) in dirs {
            let path = home.appendingPathComponent(relative).path
            try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            setenv(variable, path, 1)
        }
        let runtime = base.appendingPathComponent("run").path
        try? FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
        setenv("XDG_RUNTIME_DIR", runtime, 1)
        setenv("HOME", home.path, 1)
        for variable in clearedVariables { unsetenv(variable) }
        if let closed = try? ClosedPort() {
            closedProxyPort = closed
            let url = "http://127.0.0.1:\(closed.port)"
            for variable in ["HTTP_PROXY", "FTP_PROXY", "ftp_proxy"] { setenv(variable, url, 1) }
            for variable in ["no_proxy", "NO_PROXY"] { setenv(variable, "localhost,127.0.0.1,::1", 1) }
        }
        setenv("PUSHLAB_TEST_GUARD", "home", 1)
        return true
    }()

    nonisolated(unsafe) private static var closedProxyPort: ClosedPort?
    /// The private directory `ensure()` made (set once, before any test reads it).
    nonisolated(unsafe) private static var privateBase: String?

    private static func removePrivateBase() {
        if let privateBase { try? FileManager.default.removeItem(atPath: privateBase) }
    }
}
