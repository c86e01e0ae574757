import Foundation
import TestSupport
import XCTest

/// Issue 36: the test that is the new user. pushlab is installed into a temporary prefix
/// (`scripts/install`, what `make install` runs, with the binary already built), put on PATH and
/// run by name — `pushlab`, as a shell finds it — from an empty directory outside the repository,
/// with a clean environment (its own HOME, XDG_DATA_HOME and XDG_CONFIG_HOME; no PUSHLAB_HOME).
/// Then `make uninstall`, and the user's history and profiles are still there.
final class NewUserWalkTests: XCTestCase {
    /// One installed pushlab and the user who runs it.
    struct NewUser {
        let prefix: URL
        let home: URL
        /// The empty directory the user works in.
        let workspace: URL
        /// The directory on PATH that holds `pushlab`.
        var binDirectory: String
        /// `pushlab`, found on PATH as a shell finds it; or its full path (`byFullPath()`), so a
        /// test of what happens after the files are found does not depend on how they are found.
        var command = "pushlab"
        /// XDG_DATA_HOME is PREFIX/share, as for `make install PREFIX=$HOME/.local`: the install's
        /// share/pushlab and the user's data directory are the same directory.
        var dataHome: String { prefix.path + "/share" }
        var configHome: String { home.path + "/.config" }
        var share: String { prefix.path + "/share/pushlab" }
        var environment: [String] {
            ["HOME=\(home.path)", "PATH=\(binDirectory):/usr/local/bin:/usr/bin:/bin", "XDG_DATA_HOME=\(dataHome)",
             "XDG_CONFIG_HOME=\(configHome)", "LANG=C.UTF-8"]
        }

        init(prefix: URL, binDirectory: String? = nil) {
            self.prefix = prefix
            home = Fixtures.temporaryDirectory("pushlab-home")
            workspace = Fixtures.temporaryDirectory("pushlab-workspace")
            self.binDirectory = binDirectory ?? prefix.path + "/bin"
        }

        /// `pushlab ARGS` by name, in the workspace, with only the user's environment.
        func pushlab(_ arguments: [String], timeout: TimeInterval = 120) throws -> ProcessResult {
            try ProcessRunner.run("/usr/bin/env", ["-i"] + environment + [command] + arguments,
                                  currentDirectory: workspace.path, timeout: timeout)
        }

        /// A shell command line in the workspace, with the user's environment.
        func shell(_ command: String) throws -> ProcessResult {
            try ProcessRunner.run("/usr/bin/env", ["-i"] + environment + ["/bin/bash", "-c", command], currentDirectory: workspace.path)
        }

        /// A long-running `pushlab ARGS` (serve, relay), by name, in the workspace.
        func server(_ arguments: [String], ready: @escaping (String) -> Bool) throws -> ServerProcess {
            try ServerProcess(["-i"] + environment + [command] + arguments, executable: "/usr/bin/env", currentDirectory: workspace, readyWhen: ready)
        }

        func byFullPath() -> NewUser {
            var user = self
            user.command = binDirectory + "/pushlab"
            return user
        }

        func remove() {
            for url in [prefix, home, workspace] { try? FileManager.default.removeItem(at: url) }
        }
    }

    /// Installs the built binary (no second, release build) into a fresh prefix.
    static func install() throws -> NewUser {
        try Fixtures.requirePushlab()
        let user = NewUser(prefix: Fixtures.temporaryDirectory("pushlab-prefix"))
        let install = try ProcessRunner.run(Fixtures.path("scripts/install"), [user.prefix.path, Fixtures.pushlabBinary], timeout: 120)
        guard install.status == 0 else { throw TestEnvironmentError("scripts/install failed: \(install.stdout)\(install.stderr)") }
        return user
    }

    // Item 1 — the walk: run by name after a PATH lookup from an empty directory, pushlab finds
    // its installed files for every command a new user meets first.
    func testInstalledPushlabRunByNameWorksFromAnEmptyDirectory() throws {
        let user = try Self.install()
        defer { user.remove() }
        let demo = try user.pushlab(["demo"])
        XCTAssertEqual(demo.status, 0, demo.stdout + demo.stderr)
        XCTAssertTrue(demo.stdout.contains("demo passed"), demo.stdout)
        let simulate = try user.pushlab(["simulate", "--pushes", "40", "--devices", "4"])
        XCTAssertEqual(simulate.status, 0, simulate.stdout + simulate.stderr)
        try serveSendAndShowAnImage(user)
        try relayThroughItsEmulator(user)
        // Items 4 and 10 as the user meets them. pushlab's own status, not head's: 0 (it wrote
        // everything before head left) or 141 (SIGPIPE); ClosedPipeTests holds the 141 for sure.
        let piped = try user.shell("pushlab validate --rules | head -1; exit ${PIPESTATUS[0]}")
        XCTAssertTrue([0, 141].contains(piped.status), "pushlab validate --rules | head -1: status \(piped.status)\n\(piped.stderr)")
        XCTAssertEqual(piped.stderr, "", "quiet in a closed pipe")
        XCTAssertEqual(piped.stdout.split(separator: "\n").count, 1)
        for group in ["send", "channels", "activity", "relay", "app", "profile", "push", "android"] {
            let help = try user.pushlab([group, "--help"])
            XCTAssertEqual(help.status, 0, "pushlab \(group) --help: \(help.stderr)")
            XCTAssertTrue(help.stdout.contains("pushlab \(group) "), help.stdout)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: user.workspace.path), ["push.json"],
                       "nothing written into the user's directory but the test's own push.json")
    }

    // Item 2: serve's default images are the installed ones (not ./payloads/assets), so the
    // extension attaches one — run by full path, as pushlab could already find its certificate.
    func testInstalledServeServesItsImagesAndTheExtensionAttachesOne() throws {
        let user = try Self.install()
        defer { user.remove() }
        try serveSendAndShowAnImage(user.byFullPath())
    }

    // Item 2: the relay's built-in emulator starts from the installed certificates (not ./certs).
    func testInstalledRelayStartsItsEmulatorAndDelivers() throws {
        let user = try Self.install()
        defer { user.remove() }
        try relayThroughItsEmulator(user.byFullPath())
    }

    /// serve (its certificate and images from the installed files), send apns, send fcm, and nse
    /// with an image from serve.
    private func serveSendAndShowAnImage(_ user: NewUser, file: StaticString = #filePath, line: UInt = #line) throws {
        let server = try user.server(["serve", "--port", "0", "--h2c-port", "0", "--apns-port", "0"]) { $0.contains("quick start") }
        defer { _ = server.stop() }
        let google = try XCTUnwrap(server.port(after: "https://127.0.0.1:"), server.banner)
        let apns = try XCTUnwrap(server.port(after: "APNs: https://127.0.0.1:"), server.banner)
        XCTAssertTrue(server.banner.contains("/images/<name> from \(user.share)/payloads/assets/"), server.banner, file: file, line: line)
        let ca = user.share + "/certs/ca.pem"
        let image = try ProcessRunner.run("/usr/bin/curl", ["-s", "--cacert", ca, "-o", "/dev/null", "-w", "%{http_code}",
                                                            "https://127.0.0.1:\(google)/images/demo-image.png"])
        XCTAssertEqual(image.stdout, "200", "the installed images are served", file: file, line: line)

        let token = String(repeating: "ab", count: 32)
        let apnsSend = try user.pushlab(["send", "apns", "--url", "https://127.0.0.1:\(apns)", "--ca-file", ca, "--key", user.share + "/certs/AuthKey_PLDEVKEY01.p8",
                                         "--team-id", Fixtures.apnsTeamID, "--topic", Fixtures.bundleID, "--token", token, "--title", "hello, new user"])
        XCTAssertEqual(apnsSend.status, 0, apnsSend.stdout + apnsSend.stderr, file: file, line: line)
        let fcmSend = try user.pushlab(["send", "fcm", "--url", "https://127.0.0.1:\(google)", "--ca-file", ca,
                                        "--service-account", user.share + "/certs/fcm-service-account.json", "--fid", "dQw4w9WgXcQpZ7k3mB2x_A", "--title", "hi"])
        XCTAssertEqual(fcmSend.status, 0, fcmSend.stdout + fcmSend.stderr, file: file, line: line)

        let push = user.workspace.appendingPathComponent("push.json")
        try Data("""
            {"aps": {"alert": {"title": "Sale"}, "mutable-content": 1},
             "CIO": {"push": {"image": "https://127.0.0.1:\(google)/images/demo-image.png"}}, "CIO-Delivery-ID": "D1", "CIO-Delivery-Token": "T1"}
            """.utf8).write(to: push)
        let nse = try user.pushlab(["nse", push.path, "--ca-file", ca, "--collector", "https://127.0.0.1:\(google)", "--time-scale", "100"])
        XCTAssertEqual(nse.status, 0, nse.stdout + nse.stderr, file: file, line: line)
        XCTAssertTrue(nse.stdout.contains("image: attached"), nse.stdout, file: file, line: line)
    }

    /// An API key, the relay with the sample relay.json (target "emulator"), one push delivered
    /// through the built-in emulator; the relay's data goes to the user's data directory.
    private func relayThroughItsEmulator(_ user: NewUser, file: StaticString = #filePath, line: UInt = #line) throws {
        let config = user.share + "/payloads/relay/relay.json"
        let key = try user.pushlab(["relay", "keys", "create", "--app", "demo"])
        XCTAssertEqual(key.status, 0, key.stderr, file: file, line: line)
        let relay = try user.server(["relay", "--config", config, "--port", "0"]) { $0.contains("relay: emulator") }
        defer { _ = relay.stop() }
        let port = try XCTUnwrap(relay.port(after: "relay: listening on http://127.0.0.1:"), relay.stdout + relay.stderr)
        let body = #"{"apns": {"payload": {"aps": {"alert": {"title": "Hello"}}}}, "apns_tokens": ["3a5fe9c1fd4e48aaffab16cf9b68867772ce802b5066deb902dbfbe2b419c372"]}"#
        let bearer = "authorization: Bearer \(key.stdout.trimmingCharacters(in: .whitespacesAndNewlines))"
        let accepted = try ProcessRunner.run("/usr/bin/curl", ["-s", "http://127.0.0.1:\(port)/v1/apps/demo/pushes", "-H", bearer, "-d", body])
        let id = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(accepted.stdout.utf8)) as? [String: Any])?["id"] as? String, accepted.stdout)
        let status = try ProcessRunner.run("/usr/bin/curl", ["-s", "http://127.0.0.1:\(port)/v1/pushes/\(id)?wait=20s&results=false", "-H", bearer], timeout: 40)
        let counts = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any], status.stdout)
        XCTAssertEqual(counts["sent"] as? Int, 1, "delivered through the built-in emulator: \(status.stdout)\n\(relay.stderr)", file: file, line: line)
        XCTAssertTrue(FileManager.default.fileExists(atPath: user.dataHome + "/pushlab/relay/queue.sqlite"), "the relay's data is user data", file: file, line: line)
    }

    // Item 3: `make uninstall` removes what install wrote and nothing of the user's — even with
    // the user's data directory and the install's share/pushlab being the same directory.
    func testMakeUninstallKeepsTheUsersHistoryProfilesAndRelayDataAndSaysWhere() throws {
        let user = try Self.install().byFullPath()
        defer { user.remove() }
        let server = try user.server(["serve", "--port", "0", "--h2c-port", "0", "--apns-port", "0", "--quiet"]) { $0.contains("quick start") }
        let apns = try XCTUnwrap(server.port(after: "APNs: https://127.0.0.1:"), server.banner)
        let key = user.share + "/certs/AuthKey_PLDEVKEY01.p8"
        let add = try user.pushlab(["profile", "add", "mine", "--key", key, "--team-id", Fixtures.apnsTeamID, "--bundle-id", Fixtures.bundleID,
                                    "--ca-file", user.share + "/certs/ca.pem", "--url", "https://127.0.0.1:\(apns)"])
        XCTAssertEqual(add.status, 0, add.stdout + add.stderr)
        let send = try user.pushlab(["send", "apns", "--profile", "mine", "--token", String(repeating: "cd", count: 32), "--title", "kept"])
        XCTAssertEqual(send.status, 0, send.stdout + send.stderr)
        _ = server.stop()
        let relayKey = try user.pushlab(["relay", "keys", "create", "--app", "demo"])
        XCTAssertEqual(relayKey.status, 0, relayKey.stderr)
        let history = user.dataHome + "/pushlab/history.sqlite"
        let profiles = user.configHome + "/pushlab/config.json"
        let relayData = user.dataHome + "/pushlab/relay/keys.sqlite"
        let fm = FileManager.default
        for file in [history, profiles, relayData] { XCTAssertTrue(fm.fileExists(atPath: file), "written before uninstall: \(file)") }

        let uninstall = try ProcessRunner.run("/usr/bin/env", ["-i"] + user.environment + ["make", "-C", Fixtures.root.path, "uninstall", "PREFIX=\(user.prefix.path)"],
                                              timeout: 60)
        XCTAssertEqual(uninstall.status, 0, uninstall.stdout + uninstall.stderr)
        XCTAssertFalse(fm.fileExists(atPath: user.prefix.path + "/bin/pushlab"), "the binary is removed")
        XCTAssertFalse(fm.fileExists(atPath: user.share + "/certs"), "the installed files are removed")
        XCTAssertFalse(fm.fileExists(atPath: user.share + "/payloads"))
        XCTAssertFalse(fm.fileExists(atPath: user.prefix.path + "/share/man/man1/pushlab.1"))
        for file in [history, profiles, relayData] { XCTAssertTrue(fm.fileExists(atPath: file), "uninstall removed the user's \(file)") }
        let history2 = try ProcessRunner.pushlab(["history", "--history", history])
        XCTAssertEqual(history2.status, 0, history2.stderr)
        XCTAssertTrue(history2.stdout.contains("apns"), "the send is still in the history: \(history2.stdout)")
        XCTAssertTrue(uninstall.stdout.contains("kept your data"), uninstall.stdout)
        XCTAssertTrue(uninstall.stdout.contains(history) && uninstall.stdout.contains(profiles), "uninstall says what it left and where: \(uninstall.stdout)")
    }

    // Item 1: a symlink to the installed binary (~/bin/pushlab -> PREFIX/bin/pushlab) finds the
    // files beside the real binary (/proc/self/exe), not beside the link.
    func testASymlinkToTheInstalledBinaryFindsItsFiles() throws {
        var user = try Self.install()
        defer { user.remove() }
        let links = user.home.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: links, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: links.path + "/pushlab", withDestinationPath: user.prefix.path + "/bin/pushlab")
        user.binDirectory = links.path
        let check = try user.pushlab(["relay", "--config", user.share + "/payloads/relay/relay.json", "--check"])
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
        XCTAssertTrue(check.stdout.contains("ok, 1 app"), check.stdout)
    }

    // Item 3: an install made before the manifest existed is uninstalled file by file too, and
    // the history beside it stays.
    func testUninstallOfAnInstallWithoutAManifestKeepsTheHistory() throws {
        let user = try Self.install()
        defer { user.remove() }
        let fm = FileManager.default
        try fm.removeItem(atPath: user.share + "/install-manifest.txt")
        let history = user.share + "/history.sqlite"
        XCTAssertTrue(fm.createFile(atPath: history, contents: Data("kept".utf8)))
        let uninstall = try ProcessRunner.run("/usr/bin/env", ["-i"] + user.environment + [Fixtures.path("scripts/uninstall"), user.prefix.path])
        XCTAssertEqual(uninstall.status, 0, uninstall.stdout + uninstall.stderr)
        XCTAssertEqual(try fm.contentsOfDirectory(atPath: user.share), ["history.sqlite"], uninstall.stdout)
        XCTAssertFalse(fm.fileExists(atPath: user.prefix.path + "/bin/pushlab"))
        XCTAssertTrue(uninstall.stdout.contains(history), uninstall.stdout)
    }

    // Items 1 and 5's reader: a copy of the repository under /tmp, its binary run by name from an
    // empty directory, finds the copy's files (the source tree beside the binary).
    func testABinaryInACloneUnderTmpRunsTheDemoAndServesTheClonesImagesFromAnEmptyDirectory() throws {
        try Fixtures.requirePushlab()
        let clone = URL(fileURLWithPath: "/tmp/pushlab-clone-\(UUID().uuidString)")
        let user = NewUser(prefix: clone, binDirectory: clone.path + "/.build/debug")
        defer { user.remove() }
        let fm = FileManager.default
        try fm.createDirectory(at: clone.appendingPathComponent(".build/debug"), withIntermediateDirectories: true)
        for dir in ["certs", "payloads"] { try fm.copyItem(atPath: Fixtures.path(dir), toPath: clone.appendingPathComponent(dir).path) }
        try fm.copyItem(atPath: Fixtures.pushlabBinary, toPath: clone.appendingPathComponent(".build/debug/pushlab").path)
        let demo = try user.pushlab(["demo"])
        XCTAssertEqual(demo.status, 0, demo.stdout + demo.stderr)
        let server = try user.server(["serve", "--port", "0", "--h2c-port", "0", "--apns-port", "0"]) { $0.contains("quick start") }
        defer { _ = server.stop() }
        XCTAssertTrue(server.banner.contains("from \(clone.path)/payloads/assets/"), server.banner)
    }
}
