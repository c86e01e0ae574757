import Foundation
import TestSupport
import XCTest

/// `scripts/install` (what `make install` runs) into a temporary prefix, then the installed
/// binary used from a directory outside the source tree: it needs nothing from the repository.
final class InstallTests: XCTestCase {
    func testInstalledBinaryServesSendsRunsTheDemoAndTheExtensionFromAnyDirectory() throws {
        let prefix = Fixtures.temporaryDirectory("pushlab-prefix")
        let elsewhere = Fixtures.temporaryDirectory("pushlab-elsewhere")
        defer {
            try? FileManager.default.removeItem(at: prefix)
            try? FileManager.default.removeItem(at: elsewhere)
        }
        let install = try ProcessRunner.run(Fixtures.path("scripts/install"), [prefix.path, Fixtures.pushlabBinary], timeout: 120)
        XCTAssertEqual(install.status, 0, install.stdout + install.stderr)
        let fm = FileManager.default
        let binary = prefix.appendingPathComponent("bin/pushlab").path
        let share = prefix.appendingPathComponent("share").path
        for file in ["pushlab/certs/ca.pem", "pushlab/certs/server.pem", "pushlab/payloads/apps/demo.json", "man/man1/pushlab.1",
                     "man/man1/pushlab-send-apns.1", "bash-completion/completions/pushlab", "zsh/site-functions/_pushlab",
                     "fish/vendor_completions.d/pushlab.fish"] {
            XCTAssertTrue(fm.fileExists(atPath: share + "/" + file), "not installed: \(file)")
        }
        let keyMode = try fm.attributesOfItem(atPath: share + "/pushlab/certs/AuthKey_PLDEVKEY01.p8")[.posixPermissions] as? NSNumber
        XCTAssertEqual(keyMode?.intValue, 0o600, "installed private keys stay private")

        // A clean environment: no hint where the repository is.
        var env = ProcessInfo.processInfo.environment
        env["PUSHLAB_HOME"] = nil
        env["PUSHLAB_CONFIG"] = elsewhere.appendingPathComponent("config.json").path
        let server = try LabServer(binary: binary, extraArguments: ["--console"], currentDirectory: elsewhere.path, environment: env)
        defer { server.stop() }

        func run(_ args: [String]) throws -> ProcessResult {
            let process = try ProcessRunner.run(binary, args, environment: env, currentDirectory: elsewhere.path, timeout: 120)
            return process
        }
        let certs = share + "/pushlab/certs"
        let send = try run(["send", "apns", "--url", server.apnsURL, "--ca-file", certs + "/ca.pem", "--key", certs + "/AuthKey_PLDEVKEY01.p8",
                            "--team-id", Fixtures.apnsTeamID, "--topic", Fixtures.bundleID, "--token", String(repeating: "cd", count: 32),
                            "--title", "from an installed pushlab", "--no-history"])
        XCTAssertEqual(send.status, 0, send.stdout + send.stderr)

        let payload = elsewhere.appendingPathComponent("p.json").path
        try Data(#"{"aps":{"alert":{"title":"hi"},"mutable-content":1}}"#.utf8).write(to: URL(fileURLWithPath: payload))
        let nse = try run(["nse", payload, "--app", share + "/pushlab/payloads/apps/demo.json"])
        XCTAssertEqual(nse.status, 0, nse.stdout + nse.stderr)
        XCTAssertTrue(nse.stdout.contains("extension ran: yes"), nse.stdout)

        // The console's script, style and page are compiled into the binary: nothing beside it.
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/PushConsole/Assets")
        for name in ["app.js", "app.css"] {
            let served = try ProcessRunner.run("/usr/bin/curl", ["-sS", "--fail", "--cacert", certs + "/ca.pem", server.googleURL + "/console/" + name],
                                               currentDirectory: elsewhere.path, timeout: 30)
            XCTAssertEqual(served.status, 0, served.stderr)
            XCTAssertEqual(served.stdout, try String(contentsOf: sources.appendingPathComponent(name), encoding: .utf8), "the installed binary serves /console/\(name)")
        }

        let demo = try run(["demo"])
        XCTAssertEqual(demo.status, 0, demo.stdout + demo.stderr)
        XCTAssertFalse(demo.stderr.contains("cannot find"), demo.stderr)
    }
}
