import Foundation
import TestSupport
import XCTest

/// `pushlab retainza check|reproduce` and `simulate --compare-sdks` as real processes
/// (docs/retainza.md): every push-side troubleshooting row reproduces with its sample profile
/// and names the cause, and does not with the fixed demo profile; exit statuses 0/1/2.
final class RetainzaCommandTests: XCTestCase {
    private func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    func testCheckPassesTheDemoProfileAndNamesEveryMissingCall() throws {
        let ok = try ProcessRunner.pushlab(["retainza", "check", "--app", "payloads/apps/retainza-demo.json"])
        XCTAssertEqual(ok.status, 0, ok.stdout + ok.stderr)
        XCTAssertTrue(ok.stdout.contains("integration ok"), ok.stdout)
        let cases: [(String, String)] = [("secret-key", "error: secret-key"), ("no-launch-options", "error: missing-handleLaunchOptions"),
                                         ("no-handle-open", "error: missing-handleOpen"), ("device-token", "warning: deprecated-handleDeviceToken"),
                                         ("no-consent", "error: consent-not-set"), ("no-user", "error: missing-user-id")]
        for (file, line) in cases {
            let r = try ProcessRunner.pushlab(["retainza", "check", "--app", "payloads/apps/retainza/\(file).json"])
            XCTAssertEqual(r.status, 1, r.stdout + r.stderr)
            XCTAssertTrue(r.stdout.contains(line), r.stdout)
            XCTAssertTrue(r.stdout.contains("fix: "), r.stdout)
            XCTAssertFalse(r.stdout.contains("sk_live_pushlab"), "the key is never printed")
        }
        let shape = try ProcessRunner.pushlab(["retainza", "check", "--app", "payloads/apps/retainza/no-sessions.json", "--json"])
        XCTAssertEqual(shape.status, 0, shape.stderr)
        let findings = try XCTUnwrap(try json(shape.stdout)["findings"] as? [[String: Any]])
        XCTAssertTrue(findings.contains { $0["code"] as? String == "missing-sessions" && $0["severity"] as? String == "warning" })
    }

    func testCheckNamesTheJSONPointerOfABadProfile() throws {
        let dir = Fixtures.temporaryDirectory("retainza-cli")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("app.json").path
        FileManager.default.createFile(atPath: path, contents: Data(#"{"sdkMode":"retainza","publicKey":"pk_test_x","storage":"disk"}"#.utf8))
        let r = try ProcessRunner.pushlab(["retainza", "check", "--app", path])
        XCTAssertEqual(r.status, 2, r.stdout + r.stderr)
        XCTAssertTrue(r.stderr.contains("/storage"), r.stderr)
        XCTAssertTrue(r.stderr.contains("userDefaults, memory"), r.stderr)
    }

    func testEveryScenarioReproducesWithItsSampleAndNotWithTheFixedProfile() throws {
        let scenarios = ["secret-key", "apns-token", "device-token", "missing-user-id", "missing-handle-open", "cold-start-open",
                         "memory-storage", "no-sessions", "no-consent"]
        for name in scenarios {
            let r = try ProcessRunner.pushlab(["retainza", "reproduce", name, "--json"], timeout: 60)
            XCTAssertEqual(r.status, 0, "\(name): \(r.stdout) \(r.stderr)")
            let report = try json(r.stdout)
            XCTAssertEqual(report["reproduced"] as? Bool, true, name)
            XCTAssertNotEqual(report["fix"] as? String, "-", name)
            let fixed = try ProcessRunner.pushlab(["retainza", "reproduce", name, "--app", "payloads/apps/retainza-demo.json"], timeout: 60)
            XCTAssertEqual(fixed.status, 1, "\(name) with the fixed profile: \(fixed.stdout) \(fixed.stderr)")
            XCTAssertTrue(fixed.stdout.contains("symptom not reproduced"), fixed.stdout)
        }
        let unknown = try ProcessRunner.pushlab(["retainza", "reproduce", "no-such-row"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("cold-start-open"), unknown.stderr)
    }

    func testCompareSDKsPrintsBothAndIsReproducible() throws {
        let args = ["simulate", "--compare-sdks", "--pushes", "30", "--seed", "5", "--devices", "3", "--offline", "5-9", "--outage", "15-16",
                    "--kill-rate", "0.2", "--json"]
        let a = try ProcessRunner.pushlab(args, timeout: 120)
        XCTAssertEqual(a.status, 0, a.stderr)
        let b = try ProcessRunner.pushlab(args, timeout: 120)
        XCTAssertEqual(b.status, 0, b.stderr)
        XCTAssertEqual(a.stdout, b.stdout, "the same seed gives the same counts")
        let results = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(a.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(results.map { $0["sdk"] as? String }, ["Customer.io (cio-4)", "Retainza"])
        XCTAssertEqual(results[1]["opensLostOffline"] as? Int, 5)
        let text = try ProcessRunner.pushlab(["simulate", "--sdk", "retainza", "--pushes", "10", "--retainza-app", "payloads/apps/retainza/no-consent.json"], timeout: 120)
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("| Retainza | 10 | 0 | 0 | 0 |"), "no consent: the token never registered, nothing arrives\n" + text.stdout)
    }

    // QA s12: `retainza reproduce --help`'s usage line left out the scenario NAME it requires, and
    // the text reports of check and reproduce ended in an empty line (the docs show none).
    func testReproduceUsageNamesTheScenarioAndReportsEndWithoutABlankLine() throws {
        let help = try ProcessRunner.pushlab(["retainza", "reproduce", "--help"])
        XCTAssertEqual(help.status, 0, help.stderr)
        XCTAssertTrue(help.stdout.hasPrefix("usage: pushlab retainza reproduce [options] NAME\n"), help.stdout)
        let check = try ProcessRunner.pushlab(["retainza", "check", "--app", "payloads/apps/retainza-demo.json"])
        XCTAssertEqual(check.status, 0, check.stderr)
        XCTAssertTrue(check.stdout.hasSuffix("integration ok\n"), check.stdout.debugDescription)
        let reproduce = try ProcessRunner.pushlab(["retainza", "reproduce", "secret-key"], timeout: 60)
        XCTAssertEqual(reproduce.status, 0, reproduce.stderr)
        XCTAssertFalse(reproduce.stdout.hasSuffix("\n\n"), reproduce.stdout.debugDescription)
    }

    // QA s12: simulate's --retainza-app errors pointed at the Customer.io sample and docs
    // ("samples: payloads/apps/demo.json", "see docs/device.md") and at --app, not the flag given.
    func testSimulateRetainzaAppErrorsNameTheFlagAndTheRetainzaSample() throws {
        let missing = try ProcessRunner.pushlab(["simulate", "--sdk", "retainza", "--retainza-app", "/nonexistent/app.json", "--pushes", "1"])
        XCTAssertEqual(missing.status, 2, missing.stdout + missing.stderr)
        XCTAssertTrue(missing.stderr.contains("--retainza-app /nonexistent/app.json: cannot read"), missing.stderr)
        XCTAssertTrue(missing.stderr.contains("fix: check the path given to --retainza-app (samples: payloads/apps/retainza-demo.json)"), missing.stderr)
        let wrongKind = try ProcessRunner.pushlab(["simulate", "--sdk", "retainza", "--retainza-app", "payloads/apps/demo.json", "--pushes", "1"])
        XCTAssertEqual(wrongKind.status, 2, wrongKind.stdout + wrongKind.stderr)
        XCTAssertTrue(wrongKind.stderr.contains("/sdkMode") && wrongKind.stderr.contains("docs/retainza.md"), wrongKind.stderr)
        XCTAssertFalse(wrongKind.stderr.contains("docs/device.md"), wrongKind.stderr)
    }

    // QA s12: `simulate --sdk retainza --platform android` (or --compare, --chart FILE …) ran the
    // Retainza iPhones and exited 0: the Android run was never made, the chart never drawn.
    func testSimulateSDKRunsRefuseTheOtherExperimentsOptions() throws {
        let dir = Fixtures.temporaryDirectory("retainza-sim")
        defer { try? FileManager.default.removeItem(at: dir) }
        let chart = dir.appendingPathComponent("c.svg").path
        let cases: [([String], String)] = [(["--sdk", "retainza", "--platform", "android"], "--platform does not apply to --sdk retainza"),
                                           (["--compare-sdks", "--compare"], "--compare does not apply to --compare-sdks"),
                                           (["--sdk", "retainza", "--chart", chart], "--chart does not apply to --sdk retainza"),
                                           (["--compare-sdks", "--doze-rate", "0.5"], "--doze-rate does not apply to --compare-sdks")]
        for (extra, message) in cases {
            let r = try ProcessRunner.pushlab(["simulate", "--pushes", "2", "--devices", "1"] + extra)
            XCTAssertEqual(r.status, 2, "\(extra): \(r.stdout)\(r.stderr)")
            XCTAssertTrue(r.stderr.contains(message) && r.stderr.contains("fix: "), r.stderr)
            XCTAssertEqual(r.stdout, "", "nothing run")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: chart))
    }

    // QA s12: an app profile path that is a directory said only "cannot read the app profile"
    // (and "check the path"), for retainza check and every command loading a profile.
    func testAnAppProfileThatIsADirectoryIsNamedAsOne() throws {
        let dir = Fixtures.temporaryDirectory("retainza-dir")
        defer { try? FileManager.default.removeItem(at: dir) }
        for arguments in [["retainza", "check", "--app", dir.path], ["nse", Fixtures.path("payloads/nse/rich-push.json"), "--app", dir.path]] {
            let r = try ProcessRunner.pushlab(arguments)
            XCTAssertEqual(r.status, 2, "\(arguments): \(r.stdout)\(r.stderr)")
            XCTAssertTrue(r.stderr.contains("--app \(dir.path): is a directory, expected the app profile"), r.stderr)
            XCTAssertTrue(r.stderr.contains("fix: pass the profile's file, not its directory"), r.stderr)
        }
    }

    // QA s12: `simulate --retainza-app FILE` without an SDK run was ignored (exit 0, the
    // delivered-metric experiment ran); a Retainza profile given to a Customer.io --app said
    // "/apnsToken: unknown key; known keys: …".
    func testARetainzaProfileGivenWhereItDoesNotApplyIsNamed() throws {
        let ignored = try ProcessRunner.pushlab(["simulate", "--pushes", "2", "--devices", "1", "--retainza-app", "payloads/apps/retainza/no-consent.json"])
        XCTAssertEqual(ignored.status, 2, ignored.stdout + ignored.stderr)
        XCTAssertTrue(ignored.stderr.contains("--retainza-app applies only to the SDK runs") && ignored.stderr.contains("--sdk retainza"), ignored.stderr)
        for arguments in [["simulate", "--compare-sdks", "--pushes", "2", "--devices", "1", "--app", "payloads/apps/retainza-demo.json"],
                          ["nse", "payloads/nse/rich-push.json", "--app", "payloads/apps/retainza-demo.json"]] {
            let r = try ProcessRunner.pushlab(arguments)
            XCTAssertEqual(r.status, 2, "\(arguments): \(r.stdout)\(r.stderr)")
            XCTAssertTrue(r.stderr.contains("/sdkMode: \"retainza\" is a Retainza app profile, not a Customer.io one"), r.stderr)
            XCTAssertFalse(r.stderr.contains("unknown key"), r.stderr)
        }
    }
}
