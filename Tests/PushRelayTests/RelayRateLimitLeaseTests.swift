import Foundation
import PushStore
import TestSupport
import XCTest

/// A low `rate_per_minute` against a short lease, on both queues, with real processes: a relay
/// (`workers.concurrency` 4, so it holds up to 12 targets: 4 being sent, 8 claimed ahead) whose
/// app may send 60 a minute, and `workers.lease_seconds` 5. Twelve targets take about 12 s to
/// send, more than twice the lease, so without lease renewal the targets still waiting for the
/// budget are claimed again when their lease runs out and sent twice. The emulator
/// (`pushlab serve --db`) records every push it accepted: each token exactly once.
final class RelayRateLimitLeaseTests: XCTestCase {
    private var directory: URL!
    private var processes: [ServerProcess] = []
    private var redis: RedisServer?
    private var emulator: ServerProcess!
    private var config = ""
    private let targets = 12

    override func setUpWithError() throws {
        directory = Fixtures.temporaryDirectory("relay-rate-lease")
        emulator = try ServerProcess(["serve", "--apns-port", "0", "--port", "0", "--h2c-port", "0", "--quiet",
                                      "--db", directory.appendingPathComponent("emulator.sqlite").path]) { $0.contains("APNs: https://") }
        processes.append(emulator)
        guard let apnsPort = emulator.port(after: "APNs: https://127.0.0.1:") else { throw TestEnvironmentError("no APNs port in:\n\(emulator.stdout)") }
        config = directory.appendingPathComponent("relay.json").path
        try RelayEmulatorConfig.write(to: config, apnsPort: apnsPort, concurrency: 4, leaseSeconds: 5, ratePerMinute: 60)
    }

    override func tearDown() {
        for p in processes { p.stop(grace: 5) }
        redis?.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    private func curl(_ args: [String]) throws -> ProcessResult {
        try ProcessRunner.run("/usr/bin/curl", ["-sS", "--http2-prior-knowledge", "--max-time", "40"] + args)
    }

    /// Posts the targets, waits until the push is finished, stops the relay and returns how many
    /// times the emulator accepted each token.
    private func sendAndCount(relayArguments: [String], key: String) throws -> [String: Int] {
        let relay = try ServerProcess(["relay", "--config", config, "--quiet"] + relayArguments) { $0.contains("relay: listening on http://") }
        processes.append(relay)
        guard let port = relay.port(after: "relay: listening on http://127.0.0.1:") else { throw TestEnvironmentError("no port in:\n\(relay.stdout)") }
        let url = "http://127.0.0.1:\(port)"
        let tokens = (0..<targets).map { String(format: "%064x", 0xA7_0000 + $0) }
        let body = directory.appendingPathComponent("body.json")
        try Data(#"{"apns": {"payload": {"aps": {"alert": "slow"}}}, "apns_tokens": [\#(tokens.map { "\"\($0)\"" }.joined(separator: ","))]}"#.utf8)
            .write(to: body)
        let posted = try curl(["-X", "POST", url + "/v1/apps/demo/pushes", "-H", "authorization: Bearer \(key)",
                               "-H", "content-type: application/json", "--data-binary", "@" + body.path, "-w", "\n%{http_code}"])
        XCTAssertTrue(posted.stdout.hasSuffix("\n202"), posted.stdout + posted.stderr)
        let id = try XCTUnwrap(posted.stdout.split(separator: "\"").drop { $0 != "id" }.dropFirst(2).first.map(String.init), posted.stdout)
        var last = ""
        let finished = Poll.blocking(timeout: 90) {
            last = (try? self.curl([url + "/v1/pushes/\(id)?wait=10s&results=false", "-H", "authorization: Bearer \(key)"]).stdout) ?? ""
            return last.contains(#""finished":true"#)
        }
        // The node's own account of what it waits on (SIGQUIT, docs/relay.md): attached to a
        // failure, and checked for missed wake-ups (its client loops' sleeps that ran out their
        // cap holding work: the relay stall's cause, counted since).
        relay.send(signal: SIGQUIT)
        let reported = relay.waitForOutput(timeout: 10) { $0.contains("client demo shared") }
        XCTAssertTrue(reported, "no state report on SIGQUIT:\n\(relay.stderr)")
        XCTAssertTrue(finished, last + "\n" + relay.stderr)
        XCTAssertTrue(last.contains(#""sent":\#(targets)"#), last)
        let loops = relay.stderr.split(separator: "\n").filter { $0.contains("missed wake-ups ") }
        XCTAssertFalse(loops.isEmpty, relay.stderr)
        for line in loops { XCTAssertTrue(line.hasSuffix("missed wake-ups 0"), String(line)) }
        let output = relay.stop(grace: 10)
        XCTAssertEqual(relay.exitStatus, 0, output)
        emulator.stop()
        let records = try SQLiteDatabase(path: directory.appendingPathComponent("emulator.sqlite").path)
        var accepted: [String: Int] = [:]
        for row in try records.query("SELECT token, COUNT(*) FROM pushes WHERE status = 200 GROUP BY token") {
            accepted[row.string(0) ?? ""] = row.int(1) ?? 0
        }
        XCTAssertEqual(Set(accepted.keys), Set(tokens), "every target was delivered")
        return accepted
    }

    func testSixtyPerMinuteOnSQLiteSendsEachTargetOnceThoughItWaitsLongerThanItsLease() throws {
        let data = directory.appendingPathComponent("data").path
        let made = try ProcessRunner.pushlab(["relay", "keys", "create", "--data", data, "--app", "demo"])
        XCTAssertEqual(made.status, 0, made.stderr)
        let accepted = try sendAndCount(relayArguments: ["--data", data], key: made.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        let twice = accepted.filter { $0.value > 1 }
        XCTAssertEqual(twice.count, 0, "sent more than once: \(twice.count) of \(targets) targets")
    }

    func testSixtyPerMinuteOnRedisSendsEachTargetOnceThoughItWaitsLongerThanItsLease() throws {
        let server = try RedisServer()
        redis = server
        let made = try ProcessRunner.pushlab(["relay", "keys", "create", "--queue", server.url, "--app", "demo"])
        XCTAssertEqual(made.status, 0, made.stderr)
        let accepted = try sendAndCount(relayArguments: ["--data", directory.appendingPathComponent("data").path, "--queue", server.url, "--node", "slow"],
                                        key: made.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        let twice = accepted.filter { $0.value > 1 }
        XCTAssertEqual(twice.count, 0, "sent more than once: \(twice.count) of \(targets) targets")
    }
}
