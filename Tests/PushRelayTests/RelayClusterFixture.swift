import Foundation
import PushStore
import TestSupport
import XCTest

/// Relay nodes (`pushlab relay --queue redis://…`, real processes) on one real redis-server,
/// sending to the emulator (`pushlab serve --db --token-updates team`, another real process),
/// with one app key made for the cluster. `stop()` stops every process and Redis.
/// With `redisCluster: true` the nodes share a 3-master Redis Cluster (`--queue
/// redis-cluster://…`) instead; `redis` is then its first master.
final class RelayClusterFixture: @unchecked Sendable {
    let directory: URL
    let redis: RedisServer
    /// The Redis Cluster, when the fixture runs on one.
    let redisCluster: RedisClusterServers?
    /// The nodes' `--queue`.
    let queueURL: String
    let emulator: ServerProcess
    let config: String
    let key: String
    /// Sends in flight per node (relay.json workers.concurrency).
    let concurrency: Int
    private(set) var processes: [ServerProcess] = []

    /// `ratePerMinute` is the app's budget across the cluster: 30,000 a minute (500/s) makes a
    /// push of a thousand targets take seconds, so a kill or a Redis restart lands mid-push.
    init(name: String, concurrency: Int = 16, ratePerMinute: Int = 30_000, redisCluster: Bool = false) throws {
        directory = Fixtures.temporaryDirectory(name)
        self.concurrency = concurrency
        if redisCluster {
            let servers = try RedisClusterServers()
            self.redisCluster = servers
            redis = servers.nodes[0]
            queueURL = servers.url
        } else {
            self.redisCluster = nil
            redis = try RedisServer()
            queueURL = redis.url
        }
        emulator = try ServerProcess(["serve", "--apns-port", "0", "--port", "0", "--h2c-port", "0", "--quiet", "--token-updates", "team",
                                      "--db", directory.appendingPathComponent("emulator.sqlite").path]) { $0.contains("APNs: https://") }
        processes.append(emulator)
        guard let apnsPort = emulator.port(after: "APNs: https://127.0.0.1:") else { throw TestEnvironmentError("no APNs port in:\n\(emulator.stdout)") }
        config = directory.appendingPathComponent("relay.json").path
        try RelayEmulatorConfig.write(to: config, apnsPort: apnsPort, concurrency: concurrency, leaseSeconds: 5, ratePerMinute: ratePerMinute)
        let keys = try ProcessRunner.pushlab(["relay", "keys", "create", "--queue", queueURL, "--app", "demo"])
        guard keys.status == 0 else { throw TestEnvironmentError("relay keys create: \(keys.stderr)") }
        key = keys.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func stop() {
        for p in processes { p.stop(grace: 5) }
        redis.stop()
        redisCluster?.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Each node its own data directory: the queue and the API keys are in Redis.
    func data(_ node: String) -> String { directory.appendingPathComponent("data-\(node)").path }

    /// Starts node `name` and returns it with its base URL. `quiet: false` keeps its log on stderr.
    func startNode(_ name: String, quiet: Bool = true) throws -> (process: ServerProcess, url: String) {
        let node = try ServerProcess(["relay", "--config", config, "--data", data(name), "--queue", queueURL, "--node", name]
                                     + (quiet ? ["--quiet"] : [])) {
            $0.contains("relay: queue ")
        }
        processes.append(node)
        guard let port = node.port(after: "relay: listening on http://127.0.0.1:") else { throw TestEnvironmentError("no port in:\n\(node.stdout)") }
        if redisCluster == nil {
            XCTAssertTrue(node.stdout.contains("relay: queue redis://127.0.0.1:\(redis.port)/0 as node \(name)"), node.stdout)
        } else {
            XCTAssertTrue(node.stdout.contains("relay: queue \(queueURL) (3 streams: {pushlab.") && node.stdout.contains(" as node \(name)"), node.stdout)
        }
        return (node, "http://127.0.0.1:\(port)")
    }

    /// curl (an independent client), h2c.
    func curl(_ args: [String], maxTime: Int = 40) throws -> ProcessResult {
        try ProcessRunner.run("/usr/bin/curl", ["-sS", "--http2-prior-knowledge", "--max-time", String(maxTime)] + args)
    }

    /// The body of a push of `tokens`, written to a file for curl.
    func body(tokens: [String]) throws -> String {
        let body = directory.appendingPathComponent("body-\(tokens.count)-\(tokens.first ?? "").json")
        try Data(#"{"apns": {"payload": {"aps": {"alert": "cluster"}}}, "apns_tokens": [\#(tokens.map { "\"\($0)\"" }.joined(separator: ","))]}"#.utf8).write(to: body)
        return body.path
    }

    /// POSTs a push and returns curl's output: the body, a newline, the status code.
    func postRaw(_ url: String, bodyFile: String, headers: [String] = []) throws -> ProcessResult {
        try curl(["-X", "POST", url + "/v1/apps/demo/pushes", "-H", "authorization: Bearer \(key)", "-H", "content-type: application/json"]
                 + headers.flatMap { ["-H", $0] } + ["--data-binary", "@" + bodyFile, "-w", "\n%{http_code}"])
    }

    /// POSTs a push of `tokens` to `url` and returns its id (fails the test unless 202).
    func post(_ url: String, tokens: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let r = try postRaw(url, bodyFile: try body(tokens: tokens))
        XCTAssertTrue(r.stdout.hasSuffix("\n202"), r.stdout + r.stderr, file: file, line: line)
        return try XCTUnwrap(Self.pushID(r.stdout), r.stdout, file: file, line: line)
    }

    /// The `"id"` of a 202 answer.
    static func pushID(_ answer: String) -> String? {
        answer.split(separator: "\"").drop { $0 != "id" }.dropFirst(2).first.map(String.init)
    }

    /// Waits (API `?wait=`) until the push is finished; returns the last answer.
    func waitFinished(_ url: String, _ id: String, timeout: TimeInterval = 60) throws -> String {
        var last = ""
        _ = Poll.blocking(timeout: timeout) {
            last = (try? curl([url + "/v1/pushes/\(id)?wait=10s&results=false", "-H", "authorization: Bearer \(key)"]).stdout) ?? ""
            return last.contains(#""finished":true"#)
        }
        return last
    }

    /// Targets with a final result, cluster-wide (0 while Redis is down).
    func finishedTargets() -> Int {
        guard let redisCluster else { return Int((try? redis.cli(["GET", "pushlab:finished"])) ?? "") ?? 0 }
        return lanePrefixes().reduce(0) { $0 + (Int((try? redisCluster.cli(["GET", "\($1):finished"])) ?? "") ?? 0) }
    }

    /// The queue's key prefixes: `pushlab`, or on a Redis Cluster one `{pushlab.N}` per lane.
    func lanePrefixes() -> [String] {
        guard let redisCluster else { return ["pushlab"] }
        let stored = (try? redisCluster.cli(["GET", "{pushlab}:lanes"])) ?? ""
        return stored.split(separator: ",").map { "{\($0)}" }
    }

    /// The emulator's records (it is stopped first): accepted count per token, and the 429
    /// TooManyProviderTokenUpdates answers.
    func emulatorRecords() throws -> (accepted: [String: Int], tokenUpdates: Int) {
        emulator.stop()
        let records = try SQLiteDatabase(path: directory.appendingPathComponent("emulator.sqlite").path)
        var accepted: [String: Int] = [:]
        for row in try records.query("SELECT token, COUNT(*) FROM pushes WHERE status = 200 GROUP BY token") {
            accepted[row.string(0) ?? ""] = row.int(1) ?? 0
        }
        let updates = try records.query("SELECT COUNT(*) FROM pushes WHERE reason = 'TooManyProviderTokenUpdates'").first?.int(0) ?? -1
        return (accepted, updates)
    }

    /// How many times each token's final result was written: every write of a result appends
    /// it to the app's delivery log (`pushlab:delivered:demo`, on a Redis Cluster one per lane,
    /// a line per result) in the same script as its done marker, so a target recorded twice
    /// appears twice there (a hash of results, `HLEN`, would show one field either way). Also
    /// the sum of the entries' counts.
    func resultWrites(_ tokens: [String]) throws -> (perToken: [String: Int], total: Int) {
        var perToken: [String: Int] = Dictionary(uniqueKeysWithValues: tokens.map { ($0, 0) })
        var total = 0
        for prefix in lanePrefixes() {
            let arguments = ["--no-raw", "XRANGE", "\(prefix):delivered:demo", "-", "+"]
            let log = try redisCluster?.cli(arguments) ?? redis.cli(arguments)
            // redis-cli --no-raw prints the separators escaped: a result's fields are between "\x1f"s.
            for field in log.components(separatedBy: "\\x1f") where perToken[field] != nil { perToken[field]! += 1 }
            let lines = log.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            for (k, line) in lines.enumerated() where line.hasSuffix("\"n\"") && k + 1 < lines.count {
                total += Int(lines[k + 1].split(separator: " ").last?.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) ?? "") ?? 0
            }
        }
        return (perToken, total)
    }

    func tokens(_ count: Int, base: Int) -> [String] { (0..<count).map { String(format: "%064x", base + $0) } }
}
