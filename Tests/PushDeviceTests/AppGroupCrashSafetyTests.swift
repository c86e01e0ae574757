import Foundation
import PushCore
@testable import PushDevice
import TestSupport
import XCTest

/// Issue 9 item 5: the extension and the app share the store from two real processes; a
/// process killed at any instant leaves a readable store and loses no row it acknowledged.
final class AppGroupCrashSafetyTests: XCTestCase {
    private var container: URL!

    override func setUp() { container = Fixtures.temporaryDirectory("crash-safety") }
    override func tearDown() { try? FileManager.default.removeItem(at: container) }

    private func profile(_ store: String) throws -> String {
        let path = container.appendingPathComponent("app-\(store).json").path
        let json = #"{"bundleId":"io.pushlab.demo","extensionBundleId":"io.pushlab.demo.richpush","cdpApiKey":"k","appGroupStore":"\#(store)"}"#
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A writer process and its stdout. Its watchdog kills it after 60 s, so no read of the pipe
    /// (they wait for acknowledgements or EOF) can hang the suite; a test whose watchdog fired fails.
    private func writer(_ app: String, count: Int, prefix: String) throws -> (Process, Pipe) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Fixtures.pushlabBinary)
        p.arguments = ["app", "store", "--app", app, "--container", container.path, "--process", "nse",
                       "--append", String(count), "--delivery-prefix", prefix]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try ProcessRunner.start(p)
        let watchdog = ProcessWatchdog(p, seconds: 60)
        addTeardownBlock {
            watchdog.cancel()
            XCTAssertFalse(watchdog.fired, "pushlab app store --delivery-prefix \(prefix) still ran after 60 s and was killed")
        }
        return (p, out)
    }

    private func acked(_ pipe: Pipe) -> Set<UUID> {
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return Set(text.split(separator: "\n").compactMap { $0.hasPrefix("ack ") ? UUID(uuidString: String($0.dropFirst(4))) : nil })
    }

    private func rows(_ kind: String) throws -> [PendingDeliveryMetric] {
        let dir = container.appendingPathComponent("io.customer")
        if kind == "cio" {
            let path = dir.appendingPathComponent(CIOPendingMetricFile.fileName).path
            guard let data = FileManager.default.contents(atPath: path) else { return [] }
            return try XCTUnwrap(CIOPendingMetricFile.decode(Array(data)), "the cio file must always decode")
        }
        return try SQLitePendingMetricStore(directory: dir, cap: 1000).loadAll()
    }

    private func concurrentWritersKeepEveryRow(_ kind: String) throws {
        let app = try profile(kind)
        let (a, outA) = try writer(app, count: 40, prefix: "a")
        let (b, outB) = try writer(app, count: 40, prefix: "b")
        let ackedA = acked(outA), ackedB = acked(outB)
        a.waitUntilExit(); b.waitUntilExit()
        XCTAssertEqual(a.terminationStatus, 0); XCTAssertEqual(b.terminationStatus, 0)
        XCTAssertEqual(ackedA.count + ackedB.count, 80)
        XCTAssertEqual(Set(try rows(kind).map(\.id)), ackedA.union(ackedB), "a lost update between the two processes")
    }

    func testTwoProcessesWritingTheCIOFileKeepEveryRow() throws { try concurrentWritersKeepEveryRow("cio") }
    func testTwoProcessesWritingTheSQLiteStoreKeepEveryRow() throws { try concurrentWritersKeepEveryRow("sqlite") }

    /// Reads the writer's output until it has acknowledged `count` rows (or ended).
    private func readAcks(_ pipe: Pipe, count: Int) -> String {
        var text = ""
        while text.components(separatedBy: "ack ").count - 1 < count {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }  // the writer ended
            text += String(decoding: chunk, as: UTF8.self)
        }
        return text
    }

    /// Each round kills a writer of 30 rows right after a seeded number of acknowledgements
    /// (0–29), so the kill lands inside the next write at a reproducible point of the run.
    private func killDuringWrites(_ kind: String, rounds: Int, seed: UInt64) throws {
        let app = try profile(kind)
        var random = SeededRandom(seed: seed)
        var killedMidRun = 0
        for round in 0..<rounds {
            let (p, out) = try writer(app, count: 30, prefix: "r\(round)")
            let before = readAcks(out, count: Int.random(in: 0..<30, using: &random))
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            if p.terminationReason == .uncaughtSignal { killedMidRun += 1 }
            let text = before + String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let ackedIDs = Set(text.split(separator: "\n").compactMap { $0.hasPrefix("ack ") ? UUID(uuidString: String($0.dropFirst(4))) : nil })
            let present = Set(try rows(kind).map(\.id))  // throws (fails) if the store is unreadable
            XCTAssertTrue(ackedIDs.isSubset(of: present), "round \(round) (seed \(seed)): \(ackedIDs.subtracting(present).count) acknowledged row(s) lost")
        }
        XCTAssertGreaterThan(killedMidRun, rounds / 2, "too few processes were killed while running to prove anything")
    }

    func testKill9DuringCIOWritesLeavesAReadableFile200Times() throws { try killDuringWrites("cio", rounds: 200, seed: 9) }
    func testKill9DuringSQLiteWritesLosesNoAcknowledgedRow() throws { try killDuringWrites("sqlite", rounds: 40, seed: 11) }
}
