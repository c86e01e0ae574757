import Foundation
import TestSupport
import XCTest

/// `pushlab profile`, `pushlab push` and `--profile`/`--push` on send: round trips, precedence
/// (flag > profile > environment variable), and no key material in any output.
final class ProfileCommandTests: XCTestCase {
    private var dir: URL!
    private var env: [String: String] = [:]
    private let token = String(repeating: "ab", count: 32)

    override func setUp() {
        dir = Fixtures.temporaryDirectory("pushlab-profiles")
        // Never the real ~/.config: every test has its own config file.
        env = ["PUSHLAB_CONFIG": dir.appendingPathComponent("config.json").path]
    }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    private func pushlab(_ args: [String], stdin: String? = nil, extraEnv: [String: String] = [:]) throws -> ProcessResult {
        try ProcessRunner.pushlab(args, stdin: stdin, environment: env.merging(extraEnv) { $1 })
    }

    private func addProfile(_ name: String, url: String? = nil, bundle: String = Fixtures.bundleID, extra: [String] = []) throws {
        var args = ["profile", "add", name, "--key", Fixtures.apnsKey, "--team-id", Fixtures.apnsTeamID, "--bundle-id", bundle,
                    "--ca-file", Fixtures.caFile] + extra
        if let url { args += ["--url", url] } else { args += ["--sandbox"] }
        let r = try pushlab(args)
        XCTAssertEqual(r.status, 0, r.stderr)
    }

    func testProfilesRoundTripThroughAddListShowUseRemove() throws {
        try addProfile("dev")
        try addProfile("staging", extra: ["--service-account", Fixtures.fcmServiceAccount, "--project", "pushlab-dev"])
        var list = try pushlab(["profile", "list", "--json"])
        XCTAssertEqual(list.status, 0, list.stderr)
        let rows = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(rows.map { $0["name"] as? String }, ["dev", "staging"])
        XCTAssertEqual(rows.map { $0["current"] as? Bool }, [true, false], "the first profile added becomes current")
        XCTAssertEqual(rows.map { $0["fcm"] as? Bool }, [false, true])

        XCTAssertEqual(try pushlab(["profile", "use", "staging"]).status, 0)
        list = try pushlab(["profile", "list"])
        XCTAssertTrue(list.stdout.contains("* staging"), list.stdout)

        let show = try pushlab(["profile", "show", "--json"])
        XCTAssertEqual(show.status, 0, show.stderr)
        let shown = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((shown["apns"] as? [String: Any])?["key"] as? String, Fixtures.apnsKey)
        XCTAssertEqual((shown["apns"] as? [String: Any])?["environment"] as? String, "sandbox")
        XCTAssertEqual((shown["fcm"] as? [String: Any])?["project"] as? String, "pushlab-dev")

        XCTAssertEqual(try pushlab(["profile", "remove", "staging"]).status, 0)
        list = try pushlab(["profile", "list", "--json"])
        XCTAssertFalse(list.stdout.contains("staging"), list.stdout)
        let missing = try pushlab(["profile", "show", "staging"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("no profile named 'staging'") && missing.stderr.contains("dev"), missing.stderr)
    }

    func testProfileOutputNeverShowsKeyMaterial() throws {
        try addProfile("dev", extra: ["--service-account", Fixtures.fcmServiceAccount])
        let key = try String(contentsOfFile: Fixtures.apnsKey, encoding: .utf8)
        let body = key.split(separator: "\n").dropFirst().first.map(String.init) ?? key
        for args in [["profile", "show"], ["profile", "show", "--json"], ["profile", "list"], ["doctor", "--json"]] {
            let r = try pushlab(args)
            XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)")
            if args[0] == "profile" { XCTAssertTrue(r.stdout.contains(Fixtures.bundleID), "\(args) shows the profile: \(r.stdout)") }
            for text in [r.stdout, r.stderr] {
                XCTAssertFalse(text.contains("PRIVATE KEY") || text.contains(body), "\(args): \(text)")
            }
        }
        let config = try String(contentsOfFile: env["PUSHLAB_CONFIG"]!, encoding: .utf8)
        XCTAssertFalse(config.contains("PRIVATE KEY"), "the config keeps paths only")
    }

    func testBadProfileInputIsAUsageErrorNamingTheFlag() throws {
        var r = try pushlab(["profile", "add", "dev", "--key", "/nonexistent/AuthKey_X.p8", "--team-id", "T", "--bundle-id", "b.c"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("--key /nonexistent/AuthKey_X.p8"), r.stderr)
        r = try pushlab(["profile", "add", "dev", "--key", Fixtures.apnsKey, "--bundle-id", "b.c"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("--team-id"), r.stderr)
        r = try pushlab(["profile", "add", "dev"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("--key") && r.stderr.contains("--service-account"), r.stderr)
        r = try pushlab(["profile", "add", "../evil", "--service-account", Fixtures.fcmServiceAccount])
        XCTAssertEqual(r.status, 2, "names become file names: no path separators")
        try Data("{\"profiles\": {\"x\": {\"apns\": {\"key\": 1}}}}".utf8).write(to: URL(fileURLWithPath: env["PUSHLAB_CONFIG"]!))
        r = try pushlab(["profile", "list"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains(env["PUSHLAB_CONFIG"]!) && r.stderr.contains("/profiles/x/apns/key"), r.stderr)
    }

    /// `profile use --none` clears the current profile without removing any: send then needs
    /// its flags (or environment), and `profile list --names` prints the names for scripts.
    func testUseNoneClearsTheCurrentProfileAndKeepsThemAll() throws {
        try addProfile("dev")
        try addProfile("prod")
        var r = try pushlab(["profile", "use", "--none"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "no current profile (was dev)\n")
        r = try pushlab(["profile", "list", "--json"])
        let rows = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(rows.map { $0["current"] as? Bool }, [false, false])
        XCTAssertEqual(try pushlab(["profile", "list", "--names"]).stdout, "dev\nprod\n")
        r = try pushlab(["send", "apns", "--token", token, "--title", "hi", "--no-history"])
        XCTAssertEqual(r.status, 2, "no current profile: the key must come from a flag \(r.stderr)")
        XCTAssertTrue(r.stderr.contains("--key"), r.stderr)
        r = try pushlab(["profile", "use", "dev", "--none"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("not both"), r.stderr)
        XCTAssertTrue(r.stderr.contains("fix: pushlab profile use NAME, or pushlab profile use --none"), r.stderr)
        XCTAssertEqual(try pushlab(["profile", "use", "prod"]).status, 0)
    }

    // QA s12: a config.json that is not JSON said "not a pushlab config (The operation could not
    // be completed. The data isn't in the correct format.)": now the line and column.
    func testABrokenConfigFileNamesTheLineAndColumn() throws {
        try Data("{\n  \"current\": \"dev\",\n  \"profiles\": {\n}\n".utf8).write(to: dir.appendingPathComponent("config.json"))
        for args in [["profile", "use", "--none"], ["profile", "list"]] {
            let r = try pushlab(args)
            XCTAssertEqual(r.status, 2, r.stdout + r.stderr)
            XCTAssertTrue(r.stderr.contains("config.json: not valid JSON (5:1: "), r.stderr)
            XCTAssertTrue(r.stderr.contains("fix: fix the JSON at that line and column"), r.stderr)
            XCTAssertFalse(r.stderr.contains("correct format"), r.stderr)
        }
    }

    func testSendTakesThePrecedenceFlagThenProfileThenEnvironment() throws {
        let server = try LabServer()
        defer { server.stop() }
        try addProfile("emulator", url: server.apnsURL)
        let base = ["send", "apns", "--token", token, "--title", "hi", "--no-history"]

        // Profile alone: key, team, topic, URL and CA all come from it.
        var r = try pushlab(base)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("accepted"), r.stdout)

        // Profile beats the environment: a broken APNS_KEY_PATH is not consulted.
        r = try pushlab(base, extraEnv: ["APNS_KEY_PATH": "/nonexistent.p8", "APNS_TOPIC": "com.other.app"])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)

        // A flag beats the profile: another topic is refused by the emulator (quick start knows io.pushlab.demo only).
        r = try pushlab(base + ["--topic", "com.other.app"])
        XCTAssertEqual(r.status, 1, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("DeviceTokenNotForTopic") || r.stdout.contains("TopicDisallowed"), r.stdout)

        // Without a profile the environment variable is used (and its bad path reported).
        try FileManager.default.removeItem(atPath: env["PUSHLAB_CONFIG"]!)
        r = try pushlab(base + ["--url", server.apnsURL, "--ca-file", Fixtures.caFile, "--team-id", Fixtures.apnsTeamID],
                        extraEnv: ["APNS_KEY_PATH": "/nonexistent.p8", "APNS_TOPIC": Fixtures.bundleID])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("/nonexistent.p8"), r.stderr)

        // An explicit profile that does not exist is an error, not a silent fallback.
        r = try pushlab(base + ["--profile", "nope"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("no profile named 'nope'"), r.stderr)
    }

    func testSavedPushesAreSavedListedShownAndSent() throws {
        let server = try LabServer()
        defer { server.stop() }
        try addProfile("emulator", url: server.apnsURL)
        let payload = try pushlab(["payload", "--title", "Welcome", "--body", "Thanks for joining"])
        XCTAssertEqual(payload.status, 0, payload.stderr)
        var r = try pushlab(["push", "save", "welcome", "-"], stdin: payload.stdout)
        XCTAssertEqual(r.status, 0, r.stderr)
        let file = dir.appendingPathComponent("pushes/welcome.json").path
        XCTAssertTrue(FileManager.default.fileExists(atPath: file), "saved beside the config, as a plain file")
        XCTAssertEqual(try pushlab(["push", "list"]).stdout, "welcome\n")
        XCTAssertEqual(try pushlab(["push", "show", "welcome"]).stdout, payload.stdout)

        r = try pushlab(["send", "apns", "--push", "welcome", "--token", token, "--no-history", "--json"])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("\"status\" : 200") || r.stdout.contains("\"status\": 200") || r.stdout.contains("accepted"), r.stdout)

        // Saving again needs --force; an invalid payload is refused (exit 1) and not written.
        r = try pushlab(["push", "save", "welcome", "-"], stdin: payload.stdout)
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("--force"), r.stderr)
        r = try pushlab(["push", "save", "broken", "-"], stdin: #"{"aps":{"alert":{"title":5}}}"#)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("/aps/alert/title"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("pushes/broken.json").path))

        r = try pushlab(["send", "apns", "--push", "nope", "--token", token, "--no-history"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("no saved push named 'nope'") && r.stderr.contains("welcome"), r.stderr)
        XCTAssertEqual(try pushlab(["push", "remove", "welcome"]).status, 0)
        let remaining = try JSONSerialization.jsonObject(with: Data(try pushlab(["push", "list", "--json"]).stdout.utf8)) as? [Any]
        XCTAssertEqual(remaining?.count, 0)
    }
}
