import Foundation
import PushStore
import TestSupport
import XCTest

/// `pushlab relay` as a real process: kill -9 in the middle of a push, restart, and check that
/// nothing acknowledged was lost (every target ends with exactly one final result; the
/// emulator — another real process, `pushlab serve --db` — accepted every token at least once;
/// duplicates are counted). The full 100 × 10,000 version is benchmarks/relay-soak.sh.
final class RelayProcessTests: XCTestCase {
    private var directory: URL!
    private var processes: [ServerProcess] = []

    override func setUp() {
        directory = Fixtures.temporaryDirectory("relay-kill")
    }

    override func tearDown() {
        for p in processes { p.stop(grace: 5) }
        try? FileManager.default.removeItem(at: directory)
    }

    private func startEmulator(_ extra: [String] = []) throws -> (ServerProcess, Int) {
        let emulator = try ServerProcess(["serve", "--apns-port", "0", "--port", "0", "--h2c-port", "0", "--quiet",
                                          "--db", directory.appendingPathComponent("emulator.sqlite").path] + extra) { $0.contains("APNs: https://") }
        processes.append(emulator)
        guard let port = emulator.port(after: "APNs: https://127.0.0.1:") else { throw TestEnvironmentError("no APNs port in:\n\(emulator.stdout)") }
        return (emulator, port)
    }

    private func writeConfig(apnsPort: Int, ratePerMinute: Int) throws -> String {
        let path = directory.appendingPathComponent("relay.json").path
        try RelayEmulatorConfig.write(to: path, apnsPort: apnsPort, concurrency: 16, ratePerMinute: ratePerMinute)
        return path
    }

    private func startRelay(config: String) throws -> (ServerProcess, String) {
        let relay = try ServerProcess(["relay", "--config", config, "--data", directory.appendingPathComponent("data").path, "--quiet"]) {
            $0.contains("relay: listening on http://")
        }
        processes.append(relay)
        guard let port = relay.port(after: "relay: listening on http://127.0.0.1:") else { throw TestEnvironmentError("no port in:\n\(relay.stdout)") }
        return (relay, "http://127.0.0.1:\(port)")
    }

    private func finishedTargets(_ queue: SQLiteDatabase) throws -> Int {
        try queue.query("SELECT COUNT(*) FROM targets WHERE state = 2").first?.int(0) ?? 0
    }

    private func curl(_ args: [String]) throws -> ProcessResult {
        try ProcessRunner.run("/usr/bin/curl", ["-sS", "--http2-prior-knowledge", "--max-time", "30"] + args)
    }

    func testKillDashNineMidPushLosesNothingAcknowledged() throws {
        let targets = 240
        let rounds = 3
        let (emulator, apnsPort) = try startEmulator()
        // 3,000 sends a minute (50/s): the push takes seconds, so each kill lands mid-push.
        let config = try writeConfig(apnsPort: apnsPort, ratePerMinute: 3_000)
        let keys = try ProcessRunner.pushlab(["relay", "keys", "create", "--data", directory.appendingPathComponent("data").path, "--app", "demo"])
        XCTAssertEqual(keys.status, 0, keys.stderr)
        let key = keys.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let tokens = (0..<targets).map { String(format: "%064x", 0xBEEF_0000 + $0) }

        var (relay, url) = try startRelay(config: config)
        // curl as an independent client; the 202 means the targets are on disk.
        let body = #"{"apns": {"payload": {"aps": {"alert": "kill test"}}}, "apns_tokens": [\#(tokens.map { "\"\($0)\"" }.joined(separator: ","))]}"#
        let post = try curl(["-X", "POST", url + "/v1/apps/demo/pushes", "-H", "authorization: Bearer \(key)", "-H", "content-type: application/json",
                             "-d", body, "-w", "\n%{http_code}"])
        XCTAssertTrue(post.stdout.hasSuffix("\n202"), post.stdout + post.stderr)
        let id = try XCTUnwrap(post.stdout.split(separator: "\"").drop { $0 != "id" }.dropFirst(2).first.map(String.init))

        let queue = try SQLiteDatabase(path: directory.appendingPathComponent("data/queue.sqlite").path)
        var killedAt: [Int] = []
        for round in 1...rounds {
            // Kill once this run has finished some more targets, but not all.
            let goal = targets * round / (rounds + 1)
            XCTAssertTrue(Poll.blocking(timeout: 60) { (try? self.finishedTargets(queue)) ?? 0 >= goal }, "round \(round) made no progress:\n\(relay.stderr)")
            _ = relay.killHard()
            killedAt.append(try finishedTargets(queue))
            (relay, url) = try startRelay(config: config)
        }
        let done = try curl([url + "/v1/pushes/\(id)?wait=30s&results=false", "-H", "authorization: Bearer \(key)"])
        XCTAssertTrue(done.stdout.contains(#""finished":true"#), done.stdout)
        XCTAssertTrue(done.stdout.contains(#""sent":\#(targets)"#), done.stdout)
        XCTAssertLessThan(killedAt.first ?? targets, targets, "the first kill must land before the push finished")
        let transcript = relay.stop()
        XCTAssertEqual(relay.exitStatus, 0, transcript)

        // Every target: exactly one row, final, sent.
        let rows = try queue.query("SELECT COUNT(*), COUNT(DISTINCT idx), SUM(state = 2), SUM(status = 'sent') FROM targets")
        XCTAssertEqual(rows.first?.values, [.integer(Int64(targets)), .integer(Int64(targets)), .integer(Int64(targets)), .integer(Int64(targets))])

        // The emulator's own records: every token accepted at least once; duplicates counted.
        emulator.stop()
        let records = try SQLiteDatabase(path: directory.appendingPathComponent("emulator.sqlite").path)
        var accepted: [String: Int] = [:]
        for row in try records.query("SELECT token, COUNT(*) FROM pushes WHERE status = 200 GROUP BY token") {
            accepted[row.string(0) ?? ""] = row.int(1) ?? 0
        }
        XCTAssertEqual(Set(accepted.keys), Set(tokens), "every acknowledged target reached the emulator")
        let duplicates = accepted.values.reduce(0) { $0 + max(0, $1 - 1) }
        // At most the sends in flight and the answers not yet recorded at each kill (2 × 16 workers) are repeated.
        XCTAssertLessThanOrEqual(duplicates, rounds * 2 * 16)
        print("relay kill test: \(targets) targets, \(rounds) kill -9 rounds at \(killedAt) finished; duplicates sent: \(duplicates)")
    }

    /// SIGTERM: the relay stops taking requests, lets sends in flight record their results and exits 0.
    /// Every APNs answer takes 3 s at the emulator, so the signal lands while all 8 sends of the
    /// push are in flight (claimed by workers, none finished); after the exit each has its result.
    func testSIGTERMDrainsAndExitsZero() throws {
        let (emulator, apnsPort) = try startEmulator(["--fault", "route=/3/device/{token},latency=fixed:3s"])
        let config = try writeConfig(apnsPort: apnsPort, ratePerMinute: 600_000)
        let keys = try ProcessRunner.pushlab(["relay", "keys", "create", "--data", directory.appendingPathComponent("data").path, "--app", "demo", "--json"])
        XCTAssertEqual(keys.status, 0, keys.stderr)
        XCTAssertTrue(keys.stdout.contains(#""scope" : "app:demo""#), keys.stdout)
        let list = try ProcessRunner.pushlab(["relay", "keys", "list", "--data", directory.appendingPathComponent("data").path])
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertTrue(list.stdout.contains("app:demo"), list.stdout)
        let created = try JSONSerialization.jsonObject(with: Data(keys.stdout.utf8)) as? [String: String]
        let secret = try XCTUnwrap(created?["key"])
        XCTAssertTrue(list.stdout.contains(created?["id"] ?? "?"), list.stdout)
        XCTAssertFalse(list.stdout.contains(secret), "keys list never shows a key")
        let (relay, url) = try startRelay(config: config)
        let health = try curl([url + "/healthz"])
        XCTAssertEqual(health.stdout, #"{"status":"ok"}"#)

        let tokens = (0..<8).map { String(format: "%064x", 0xD2A1_0000 + $0) }
        let body = #"{"apns": {"payload": {"aps": {"alert": "drain"}}}, "apns_tokens": [\#(tokens.map { "\"\($0)\"" }.joined(separator: ","))]}"#
        let post = try curl(["-X", "POST", url + "/v1/apps/demo/pushes", "-H", "authorization: Bearer \(secret)", "-H", "content-type: application/json",
                             "-d", body, "-w", "\n%{http_code}"])
        XCTAssertTrue(post.stdout.hasSuffix("\n202"), post.stdout + post.stderr)
        let id = try XCTUnwrap(post.stdout.split(separator: "\"").drop { $0 != "id" }.dropFirst(2).first.map(String.init), post.stdout)
        // Claimed targets live in the relay's memory: the push's status shows them.
        func phases() -> [String] {
            guard let r = try? curl([url + "/v1/pushes/\(id)", "-H", "authorization: Bearer \(secret)"]),
                  let object = try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any],
                  let results = object["results"] as? [[String: Any]] else { return [] }
            return results.compactMap { $0["status"] as? String }
        }
        var seen: [String] = []
        XCTAssertTrue(Poll.blocking(timeout: 30) { seen = phases(); return seen.filter { $0 == "claimed" }.count == tokens.count },
                      "the sends never were all in flight: \(seen)\n\(relay.stderr)")
        let inFlight = seen.filter { $0 == "claimed" }.count, finishedBefore = seen.filter { $0 == "sent" }.count
        let queue = try SQLiteDatabase(path: directory.appendingPathComponent("data/queue.sqlite").path)
        func count(_ condition: String) -> Int { (try? queue.query("SELECT COUNT(*) FROM targets WHERE \(condition)").first?.int(0)) ?? -1 }

        let transcript = relay.stop(signal: SIGTERM, grace: 30)
        XCTAssertEqual(inFlight, tokens.count, "in flight when SIGTERM was sent")
        XCTAssertEqual(finishedBefore, 0, "finished before SIGTERM (the 3 s latency passed first?)")
        XCTAssertEqual(relay.exitStatus, 0, transcript)
        XCTAssertFalse(relay.exitedBySignal, transcript)
        XCTAssertTrue(transcript.contains("draining"), transcript)
        // Drained: each send in flight finished and recorded its result before the exit.
        XCTAssertEqual(count("state = 2 AND status = 'sent'"), tokens.count, transcript)
        _ = emulator.stop()
        let records = try SQLiteDatabase(path: directory.appendingPathComponent("emulator.sqlite").path)
        let accepted = try records.query("SELECT COUNT(DISTINCT token) FROM pushes WHERE status = 200").first?.int(0)
        XCTAssertEqual(accepted, tokens.count, "the emulator answered every send in flight")
    }

    /// A stop that cannot finish within `--drain-timeout` (every APNs answer is held 120 s at the
    /// emulator, so the 8 sends stay in flight): the node prints what it still waits on, gives
    /// back what it claimed ahead, and exits 1 with that said, instead of draining for as long
    /// as the sends take. SIGQUIT before the stop shows the same state and the node carries on.
    func testAStopThatOverrunsItsBoundSaysWhatWasPendingAndExitsOne() throws {
        let (_, apnsPort) = try startEmulator(["--fault", "route=/3/device/{token},latency=fixed:120s"])
        let path = directory.appendingPathComponent("relay.json").path
        try RelayEmulatorConfig.write(to: path, apnsPort: apnsPort, concurrency: 4, ratePerMinute: 600_000)
        let data = directory.appendingPathComponent("data").path
        let keys = try ProcessRunner.pushlab(["relay", "keys", "create", "--data", data, "--app", "demo"])
        XCTAssertEqual(keys.status, 0, keys.stderr)
        let key = keys.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let relay = try ServerProcess(["relay", "--config", path, "--data", data, "--quiet", "--drain-timeout", "2s"]) {
            $0.contains("relay: listening on http://")
        }
        processes.append(relay)
        let port = try XCTUnwrap(relay.port(after: "relay: listening on http://127.0.0.1:"), relay.stdout)
        let tokens = (0..<12).map { String(format: "%064x", 0xD2A2_0000 + $0) }
        let body = #"{"apns": {"payload": {"aps": {"alert": "overrun"}}}, "apns_tokens": [\#(tokens.map { "\"\($0)\"" }.joined(separator: ","))]}"#
        let post = try curl(["-X", "POST", "http://127.0.0.1:\(port)/v1/apps/demo/pushes", "-H", "authorization: Bearer \(key)",
                             "-H", "content-type: application/json", "-d", body, "-w", "\n%{http_code}"])
        XCTAssertTrue(post.stdout.hasSuffix("\n202"), post.stdout + post.stderr)

        // Ask for the state until it shows the 4 sends in flight (the 8 others claimed ahead).
        var shown = false
        for _ in 0..<60 where !shown {
            relay.send(signal: SIGQUIT)
            shown = relay.waitForOutput(timeout: 1) {
                $0.contains("targets held: 8 claimed ahead (not sent), 4 sending") && $0.contains("4 in flight, next timer in")
            }
        }
        XCTAssertTrue(shown, "no state with 4 sends in flight at the client:\n\(relay.stderr)")
        XCTAssertTrue(relay.stderr.contains("stop: not asked"), relay.stderr)
        XCTAssertTrue(relay.stderr.contains("workers: 4 started of 4"), relay.stderr)
        XCTAssertTrue(relay.stderr.contains("client demo APNs, NGHTTP2Client: "), relay.stderr)
        XCTAssertTrue(relay.stderr.contains("missed wake-ups 0"), relay.stderr)

        // The hang guard (60 s) is far beyond the 2 s bound; no timing is asserted.
        let transcript = relay.stop(signal: SIGTERM, grace: 60)
        XCTAssertFalse(relay.exitedBySignal, transcript)
        XCTAssertEqual(relay.exitStatus, 1, transcript)
        XCTAssertTrue(transcript.contains("the stop overran its bound (--drain-timeout 2s); still pending:"), transcript)
        XCTAssertTrue(transcript.contains("stop: asked "), transcript)
        XCTAssertTrue(transcript.contains("now waiting for the sends in flight and their results"), transcript)
        XCTAssertTrue(transcript.contains("gave back 8 targets claimed ahead; 4 targets sending or not yet recorded are left to their lease"), transcript)
        XCTAssertTrue(transcript.contains("exiting with status 1 before the drain finished"), transcript)

        // The 8 given back are ready again in the queue, the 4 sent are still claimed (their
        // lease runs out), nothing is final: a restarted node sends all 12.
        let queue = try SQLiteDatabase(path: directory.appendingPathComponent("data/queue.sqlite").path)
        let final = try queue.query("SELECT COUNT(*) FROM targets WHERE state = 2").first?.int(0)
        XCTAssertEqual(final, 0, transcript)
        let rows = try queue.query("SELECT COUNT(*) FROM targets").first?.int(0)
        XCTAssertEqual(rows, tokens.count)
    }

    func testADrainTimeoutOfZeroExitsTwoNamingTheFlag() throws {
        let r = try ProcessRunner.pushlab(["relay", "--config", "relay.json", "--drain-timeout", "0s"])
        XCTAssertEqual(r.status, 2, r.stdout + r.stderr)
        XCTAssertTrue(r.stderr.contains("--drain-timeout must be more than 0"), r.stderr)
        XCTAssertTrue(r.stderr.contains("fix: pass a duration such as 20s"), r.stderr)
    }

    func testBadConfigExitsTwoNamingThePointer() throws {
        let path = directory.appendingPathComponent("relay.json").path
        try Data(#"{"apps": {"demo": {"apns": {"key": "nope.p8"}}}}"#.utf8).write(to: URL(fileURLWithPath: path))
        let r = try ProcessRunner.pushlab(["relay", "--config", path])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("/apps/demo/apns/key"), r.stderr)
        XCTAssertTrue(r.stderr.contains("fix: check the path"), r.stderr)
    }

    /// The built-in emulator cannot start without its keys: one reason, one fix line (not the
    /// key error's "Fix: …" inside the message and a second "fix:" under it).
    func testAnEmulatorThatCannotStartSaysWhyWithOneFix() throws {
        let path = directory.appendingPathComponent("relay.json").path
        let json = """
            {"listen": {"port": 0},
             "apps": {"demo": {"target": "emulator",
               "apns": {"key": "\(Fixtures.apnsKey)", "key_id": "\(Fixtures.apnsKeyID)", "team_id": "\(Fixtures.apnsTeamID)",
                        "bundle_id": "\(Fixtures.bundleID)"}}}}
            """
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        let empty = directory.appendingPathComponent("no-certs").path
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let r = try ProcessRunner.pushlab(["relay", "--config", path, "--data", directory.appendingPathComponent("data").path, "--certs", empty])
        XCTAssertEqual(r.status, 2, r.stdout + r.stderr)
        XCTAssertTrue(r.stderr.contains("cannot start the built-in emulator: \(empty)/"), r.stderr)
        XCTAssertEqual(r.stderr.components(separatedBy: "fix:").count - 1, 1, r.stderr)
        XCTAssertFalse(r.stderr.contains("Fix:"), r.stderr)
        XCTAssertTrue(r.stderr.contains("--certs DIR"), r.stderr)
    }
}
