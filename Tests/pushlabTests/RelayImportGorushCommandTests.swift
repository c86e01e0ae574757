import Foundation
import TestSupport
import XCTest

/// `pushlab relay import-gorush` as a real process, on gorush's own sample config (restated in
/// payloads/relay/gorush/sample.yml) and on a hand-written one with every section
/// (payloads/relay/gorush/production.yml): the relay.json it writes passes
/// `pushlab relay --check`, every setting is accounted for, and no secret reaches any output.
/// Broken YAML files are in the bad-input corpus (Tests/Corpus/gorush-yaml).
final class RelayImportGorushCommandTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        try Fixtures.requirePushlab()
        directory = Fixtures.temporaryDirectory("import-gorush")
    }

    override func tearDownWithError() throws {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    private func copy(_ source: String, to name: String) throws {
        let target = directory.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixtures.path(source), toPath: target.path)
    }

    private func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    private func rows(_ report: [String: Any]) -> [String: [String: Any]] {
        var out: [String: [String: Any]] = [:]
        for row in report["settings"] as? [[String: Any]] ?? [] { out[row["gorush"] as? String ?? ""] = row }
        return out
    }

    private func check(_ relayJSON: URL) throws {
        let r = try ProcessRunner.pushlab(["relay", "--config", relayJSON.path, "--check", "--data", directory.appendingPathComponent("data").path])
        XCTAssertEqual(r.status, 0, "the relay.json written must pass --check: \(r.stdout)\(r.stderr)")
    }

    func testGorushsSampleConfigConverts() throws {
        try copy("certs/fcm-service-account.json", to: "key.json")  // android.key_path: "key.json"
        let output = directory.appendingPathComponent("relay.json")
        let r = try ProcessRunner.pushlab(["relay", "import-gorush", Fixtures.path("payloads/relay/gorush/sample.yml"), "--output", output.path, "--json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try json(r.stdout)
        let written = try json(try String(contentsOf: output, encoding: .utf8))
        XCTAssertEqual(NSDictionary(dictionary: written), NSDictionary(dictionary: try json("""
            {"listen": {"host": "0.0.0.0", "port": 8088}, "limits": {"max_notifications": 100},
             "apps": {"default": {"fcm": {"service_account": "key.json"}}}}
            """)))
        XCTAssertEqual(NSDictionary(dictionary: report["relay_json"] as? [String: Any] ?? [:]), NSDictionary(dictionary: written))
        try check(output)
        let settings = rows(report)
        // Every leaf setting of gorush's sample is accounted for, none as unknown.
        let expected = ["core.enabled", "core.address", "core.shutdown_timeout", "core.port", "core.worker_num", "core.queue_num", "core.max_notification",
                        "core.sync", "core.feedback_hook_url", "core.feedback_timeout", "core.feedback_header", "core.mode", "core.ssl", "core.cert_path",
                        "core.key_path", "core.cert_base64", "core.key_base64", "core.http_proxy", "core.pid", "core.auto_tls", "grpc.enabled", "grpc.port",
                        "api.push_uri", "api.stat_go_uri", "api.stat_app_uri", "api.config_uri", "api.sys_stat_uri", "api.metric_uri", "api.health_uri",
                        "android.enabled", "android.key_path", "android.credential", "android.max_retry", "huawei.enabled", "huawei.appsecret", "huawei.appid",
                        "huawei.max_retry", "queue.engine", "queue.nsq", "queue.nats", "queue.redis.addr", "queue.redis.group", "queue.redis.consumer",
                        "queue.redis.stream_name", "queue.redis.username", "queue.redis.password", "queue.redis.with_tls", "queue.redis.db", "ios.enabled",
                        "ios.key_path", "ios.key_base64", "ios.key_type", "ios.password", "ios.production", "ios.max_concurrent_pushes", "ios.max_retry",
                        "ios.key_id", "ios.team_id", "log.format", "log.access_log", "log.access_level", "log.error_log", "log.error_level", "log.hide_token",
                        "log.hide_messages", "stat.engine", "stat.redis.cluster", "stat.redis.addr", "stat.redis.username", "stat.redis.password",
                        "stat.redis.db", "stat.boltdb.path", "stat.boltdb.bucket", "stat.buntdb.path", "stat.leveldb.path", "stat.badgerdb.path"]
        XCTAssertEqual(Set(settings.keys), Set(expected))
        XCTAssertFalse(settings.values.contains { $0["outcome"] as? String == "unknown" })
        XCTAssertEqual(settings["core.port"]?["relay"] as? String, "/listen/port")
        XCTAssertEqual(settings["android.key_path"]?["relay"] as? String, "/apps/default/fcm/service_account")
        XCTAssertEqual(settings["android.credential"]?["outcome"] as? String, "secret")
        XCTAssertEqual(settings["huawei.enabled"]?["outcome"] as? String, "none")
        XCTAssertEqual(settings["grpc.enabled"]?["outcome"] as? String, "none")
        for row in settings.values { XCTAssertFalse((row["note"] as? String ?? "").isEmpty, "\(row): says why") }
        let everything = r.stdout + r.stderr + (try String(contentsOf: output, encoding: .utf8))
        for secret in ["CREDENTIAL_JSON_DATA", "4e989115e09680f44a645519fed6a976", "YOUR_APP_SECRET"] {
            XCTAssertFalse(everything.contains(secret), "\(secret) must not be copied")
        }
    }

    func testAConfigWithEverySectionConverts() throws {
        try copy("certs/AuthKey_PLDEVKEY01.p8", to: "AuthKey_PLDEVKEY01.p8")
        try copy("certs/fcm-service-account.json", to: "fcm-service-account.json")
        try copy("certs/server.pem", to: "tls/server.pem")
        try copy("certs/server.key", to: "tls/server.key")
        try Data("0123456789abcdef0123456789abcdef\n".utf8).write(to: directory.appendingPathComponent("webhook.secret"))
        let output = directory.appendingPathComponent("relay.json")
        let r = try ProcessRunner.pushlab(["relay", "import-gorush", Fixtures.path("payloads/relay/gorush/production.yml"), "--output", output.path,
                                           "--app", "shop", "--bundle-id", "io.pushlab.demo", "--json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try json(r.stdout)
        let written = try json(try String(contentsOf: output, encoding: .utf8))
        XCTAssertEqual(NSDictionary(dictionary: written), NSDictionary(dictionary: try json("""
            {"listen": {"host": "127.0.0.1", "port": null, "tls_port": 8443, "certificate": "tls/server.pem", "private_key": "tls/server.key"},
             "limits": {"max_notifications": 50},
             "workers": {"concurrency": 200, "max_attempts": 4},
             "apps": {"shop": {
               "apns": {"key": "AuthKey_PLDEVKEY01.p8", "key_id": "PLDEVKEY01", "team_id": "PLDEVTEAM1", "bundle_id": "io.pushlab.demo", "environment": "production"},
               "fcm": {"service_account": "fcm-service-account.json"},
               "webhook": {"url": "https://backend.example.com/gorush-failures", "secret_file": "webhook.secret"}}}}
            """)))
        try check(output)
        let settings = rows(report)
        XCTAssertEqual(settings["queue.engine"]?["outcome"] as? String, "elsewhere")
        XCTAssertTrue((settings["queue.engine"]?["note"] as? String ?? "").contains("--queue redis://10.0.0.5:6379/2"))
        XCTAssertEqual(settings["queue.redis.password"]?["value"] as? String, "(secret)")
        XCTAssertTrue((settings["api.push_uri"]?["note"] as? String ?? "").contains("/v2/push"), "a moved route is named")
        XCTAssertEqual(settings["ios.max_retry"]?["relay"] as? String, "/workers/max_attempts")
        XCTAssertEqual(settings["ios.production"]?["relay"] as? String, "/apps/shop/apns/environment")
        XCTAssertEqual(settings["grpc.enabled"]?["outcome"] as? String, "none")
        XCTAssertEqual(settings["huawei.enabled"]?["outcome"] as? String, "none")
        XCTAssertEqual(settings["core.sync"]?["outcome"] as? String, "elsewhere")
        XCTAssertEqual(settings["core.http_proxy"]?["outcome"] as? String, "elsewhere")
        XCTAssertFalse(settings.values.contains { $0["outcome"] as? String == "unknown" }, "\(settings.filter { $0.value["outcome"] as? String == "unknown" })")
        let everything = r.stdout + r.stderr + (try String(contentsOf: output, encoding: .utf8))
        for secret in ["hook-secret-not-to-be-copied", "hms-secret-not-to-be-copied", "redis-secret-not-to-be-copied", "stat-secret-not-to-be-copied"] {
            XCTAssertFalse(everything.contains(secret), "\(secret) must not be copied")
        }
    }

    func testWithoutOutputTheRelayJSONGoesToStdoutAndTheListToStderr() throws {
        let r = try ProcessRunner.pushlab(["relay", "import-gorush", Fixtures.path("payloads/relay/gorush/sample.yml"), "--app", "news"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let written = try json(r.stdout)
        XCTAssertNotNil((written["apps"] as? [String: Any])?["news"], r.stdout)
        XCTAssertTrue(r.stderr.contains("android.key_path = key.json"), r.stderr)
        XCTAssertTrue(r.stderr.contains("→ /apps/news/fcm/service_account"), r.stderr)
        XCTAssertTrue(r.stderr.contains("huawei.enabled = false"), r.stderr)
    }

    func testAnExistingOutputIsKeptUnlessForced() throws {
        let output = directory.appendingPathComponent("relay.json")
        try Data("keep me\n".utf8).write(to: output)
        let refused = try ProcessRunner.pushlab(["relay", "import-gorush", Fixtures.path("payloads/relay/gorush/sample.yml"), "--output", output.path])
        XCTAssertEqual(refused.status, 2)
        XCTAssertTrue(refused.stderr.contains("exists") && refused.stderr.contains("--force"), refused.stderr)
        XCTAssertEqual(try String(contentsOf: output, encoding: .utf8), "keep me\n")
        let forced = try ProcessRunner.pushlab(["relay", "import-gorush", Fixtures.path("payloads/relay/gorush/sample.yml"), "--output", output.path, "--force"])
        XCTAssertEqual(forced.status, 0, forced.stderr)
        XCTAssertNotNil(try json(try String(contentsOf: output, encoding: .utf8))["apps"])
    }

    // QA s12: the "Next:" line run from the directory holding the files, with the short relative
    // names a user types (`--output r`, `--data d`): `relay --check` trapped in Foundation's
    // deletingLastPathComponent on a one-character path (SIGILL, a backtrace) instead of checking.
    func testShortRelativeNamesFromTheFilesDirectoryPassTheCheck() throws {
        try copy("certs/fcm-service-account.json", to: "key.json")
        let imported = try ProcessRunner.run(Fixtures.pushlabBinary, ["relay", "import-gorush", Fixtures.path("payloads/relay/gorush/sample.yml"), "--output", "r"],
                                             currentDirectory: directory.path)
        XCTAssertEqual(imported.status, 0, imported.stderr)
        for data in ["d", "e/f/g"] {
            let r = try ProcessRunner.run(Fixtures.pushlabBinary, ["relay", "--config", "r", "--data", data, "--check"], currentDirectory: directory.path)
            XCTAssertEqual(r.status, 0, "relay --config r --data \(data) --check: \(r.stdout)\(r.stderr)")
            XCTAssertTrue(r.stdout.contains("r: ok, 1 app"), r.stdout)
        }
    }

    // QA s12: --output a directory said "exists; pass --force", and with --force "NSCocoaErrorDomain
    // error 512"; a missing directory got Foundation's "The file doesn't exist". Each now names the
    // flag and what to do, exit 2, nothing written.
    func testAnOutputThatIsADirectoryOrInAMissingDirectoryIsNamedWithItsFix() throws {
        let sample = Fixtures.path("payloads/relay/gorush/sample.yml")
        for extra in [[], ["--force"]] {
            let r = try ProcessRunner.pushlab(["relay", "import-gorush", sample, "--output", directory.path] + extra)
            XCTAssertEqual(r.status, 2, r.stderr)
            XCTAssertTrue(r.stderr.contains("--output \(directory.path): is a directory"), r.stderr)
            XCTAssertTrue(r.stderr.contains("fix: name the file, e.g. --output \(directory.path)/relay.json"), r.stderr)
        }
        let missing = directory.appendingPathComponent("no/such").path
        let r = try ProcessRunner.pushlab(["relay", "import-gorush", sample, "--output", missing + "/relay.json"])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("the directory \(missing) does not exist") && r.stderr.contains("mkdir -p \(missing)"), r.stderr)
        XCTAssertFalse(r.stderr.contains("NSCocoaErrorDomain") || r.stderr.contains("operation could not be completed"), r.stderr)
    }
}
