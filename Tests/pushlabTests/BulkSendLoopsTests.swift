import Foundation
import TestSupport
import XCTest

/// Issue 26: a bulk send with `--connections N` runs N client loops (one thread each, named
/// `pushlab-client`), so a machine with spare cores spreads the sending over them.
final class BulkSendLoopsTests: XCTestCase {
    func testConnectionsNUsesNClientLoopThreads() throws {
        // Every push waits 300 ms at the emulator, so the send lasts long enough to look at.
        let server = try ServerProcess(["serve", "--port", "0", "--h2c-port", "0", "--apns-port", "0", "--quiet",
                                        "--cert", Fixtures.serverCert, "--key", Fixtures.serverKey,
                                        "--fault", "route=/3/device/{token},latency=fixed:300ms"]) { $0.contains("quick start") }
        defer { server.stop() }
        let apns = try XCTUnwrap(server.port(after: "APNs: https://127.0.0.1:"), server.banner)
        let dir = Fixtures.temporaryDirectory("bulk-loops")
        defer { try? FileManager.default.removeItem(at: dir) }
        let tokens = dir.appendingPathComponent("tokens.txt").path
        try (0..<240).map { String(format: "%064x", $0 + 1) }.joined(separator: "\n").write(toFile: tokens, atomically: true, encoding: .utf8)

        let send = Process()
        send.executableURL = URL(fileURLWithPath: Fixtures.pushlabBinary)
        send.arguments = ["send", "apns", "--key", Fixtures.apnsKey, "--team-id", Fixtures.apnsTeamID, "--topic", Fixtures.bundleID,
                          "--url", "https://127.0.0.1:\(apns)", "--ca-file", Fixtures.caFile, "--tokens", tokens, "--connections", "3",
                          "--concurrency", "30", "--title", "hi", "--no-history", "--json"]
        let out = Pipe()
        send.standardOutput = out
        send.standardError = FileHandle.nullDevice
        try send.run()
        var most = 0
        _ = Poll.blocking(timeout: 60) {
            most = max(most, Self.threads(named: "pushlab-client", in: send.processIdentifier))
            return most >= 3 || !send.isRunning
        }
        let summary = out.fileHandleForReading.readDataToEndOfFile()
        send.waitUntilExit()
        XCTAssertEqual(most, 3, "three connections, three client loop threads")
        XCTAssertEqual(send.terminationStatus, 0, String(decoding: summary, as: UTF8.self))
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: summary) as? [String: Any], String(decoding: summary, as: UTF8.self))
        XCTAssertEqual(json["accepted"] as? Int, 240, "\(json)")
    }

    /// How many threads of `pid` carry `name` (/proc/PID/task/*/comm).
    private static func threads(named name: String, in pid: Int32) -> Int {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return 0 }
        return tasks.filter { task in
            (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) == name
        }.count
    }
}
