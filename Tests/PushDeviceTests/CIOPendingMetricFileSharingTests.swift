import Foundation
@testable import PushDevice
import TestSupport
import XCTest

/// The `cio` file under concurrency: many threads of one process (group commit) and other
/// writers of the same file (another process, another store, an in-place write) — no change is
/// lost and no stale copy overwrites someone else's rows (docs/specs/device-side.md §4).
final class CIOPendingMetricFileSharingTests: XCTestCase {
    private var container: URL!
    private var directory: URL { container.appendingPathComponent("io.customer") }
    private var filePath: String { directory.appendingPathComponent(CIOPendingMetricFile.fileName).path }

    override func setUp() { container = Fixtures.temporaryDirectory("cio-sharing") }
    override func tearDown() { try? FileManager.default.removeItem(at: container) }

    private func row(_ n: Int, _ prefix: String = "dlv") -> PendingDeliveryMetric {
        PendingDeliveryMetric(id: UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", n))!, deliveryID: "\(prefix)-\(n)", deviceID: "token", timestamp: Date(timeIntervalSince1970: 1_775_126_768 + Double(n)))
    }

    /// The rows on disk, decoded from the file itself (not through any store's cache).
    private func rowsOnDisk() throws -> [PendingDeliveryMetric] {
        let data = try XCTUnwrap(FileManager.default.contents(atPath: filePath), "no file at \(filePath)")
        return try XCTUnwrap(CIOPendingMetricFile.decode(Array(data)), "the file must decode")
    }

    func testConcurrentAppendsAndRemovesFromManyThreadsAllReachTheFile() throws {
        let store = try CIOPendingMetricFile(directory: directory)
        let threads = 8, perThread = 12
        let rows = (0..<threads).map { t in (0..<perThread).map { row(t * perThread + $0) } }
        let failures = Counter()
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            for r in rows[t] where (try? store.append(r)) != .stored(droppedOldest: 0) { failures.add() }
        }
        XCTAssertEqual(failures.value, 0, "every append must report its row stored")
        XCTAssertEqual(Set(try rowsOnDisk().map(\.id)), Set(rows.joined().map(\.id)), "a concurrent append was lost")
        XCTAssertEqual(store.commitStatistics.changes, threads * perThread)

        DispatchQueue.concurrentPerform(iterations: threads) { t in
            for r in rows[t] where (try? store.remove(ids: [r.id])) != 1 { failures.add() }
        }
        XCTAssertEqual(failures.value, 0, "every remove must report its row removed")
        XCTAssertEqual(try rowsOnDisk(), [])
        XCTAssertEqual(String(decoding: FileManager.default.contents(atPath: filePath) ?? Data(), as: UTF8.self), "[]")
    }

    func testRowsAnotherProcessAppendedSurviveTheNextWrite() throws {
        let store = try CIOPendingMetricFile(directory: directory)
        _ = try store.append(row(1))  // this process now knows the file
        let app = container.appendingPathComponent("app.json")
        try Data(#"{"bundleId":"io.pushlab.demo","extensionBundleId":"io.pushlab.demo.richpush","cdpApiKey":"k","appGroupStore":"cio"}"#.utf8).write(to: app)
        let other = try ProcessRunner.run(Fixtures.pushlabBinary, ["app", "store", "--app", app.path, "--container", container.path,
                                                                    "--process", "nse", "--append", "3", "--delivery-prefix", "other"])
        XCTAssertEqual(other.status, 0, other.stderr)
        _ = try store.append(row(2))
        XCTAssertEqual(try rowsOnDisk().map(\.deliveryID), ["dlv-1", "other-1", "other-2", "other-3", "dlv-2"])
        XCTAssertEqual(try store.loadAll().map(\.deliveryID), ["dlv-1", "other-1", "other-2", "other-3", "dlv-2"])
    }

    func testFileRewrittenInPlaceIsReadAgain() throws {
        let store = try CIOPendingMetricFile(directory: directory)
        _ = try store.append(row(1))
        _ = try store.append(row(2))
        // Another writer truncates and rewrites the same inode (no rename): only row 3 is left.
        let fd = open(filePath, O_WRONLY | O_TRUNC)
        XCTAssertGreaterThanOrEqual(fd, 0)
        let bytes = CIOPendingMetricFile.encode([row(3)])
        XCTAssertEqual(bytes.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }, bytes.count)
        close(fd)
        XCTAssertEqual(try store.loadAll().map(\.deliveryID), ["dlv-3"])
        _ = try store.append(row(4))
        XCTAssertEqual(try rowsOnDisk().map(\.deliveryID), ["dlv-3", "dlv-4"])
    }

    func testTwoStoresOnOneDirectoryKeepEachOthersRows() throws {
        let a = try CIOPendingMetricFile(directory: directory)
        let b = try CIOPendingMetricFile(directory: directory)
        for n in 1...6 { _ = try (n.isMultiple(of: 2) ? b : a).append(row(n)) }
        XCTAssertEqual(try a.remove(ids: [row(2).id, row(5).id]), 2)
        _ = try b.append(row(7))
        XCTAssertEqual(try rowsOnDisk().map(\.deliveryID), ["dlv-1", "dlv-3", "dlv-4", "dlv-6", "dlv-7"])
        XCTAssertEqual(try a.loadAll(), try b.loadAll())
    }

    func testATornSpareLeftByAKilledWriterNeverBecomesTheFile() throws {
        let store = try CIOPendingMetricFile(directory: directory)
        _ = try store.append(row(1))
        _ = try store.append(row(2))
        // A writer killed while filling the spare leaves it torn (here: longer than any content).
        let spare = directory.appendingPathComponent(".\(CIOPendingMetricFile.fileName).swap").path
        XCTAssertTrue(FileManager.default.fileExists(atPath: spare), "the spare holds the previous version")
        try Data(repeating: UInt8(ascii: "#"), count: 64 * 1024).write(to: URL(fileURLWithPath: spare))
        XCTAssertEqual(try store.loadAll().map(\.deliveryID), ["dlv-1", "dlv-2"])
        _ = try store.append(row(3))
        XCTAssertEqual(FileManager.default.contents(atPath: filePath).map { Array($0) }, CIOPendingMetricFile.encode([row(1), row(2), row(3)]))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(),
                       [".\(CIOPendingMetricFile.fileName).swap", CIOPendingMetricFile.fileName])
    }

    func testRowsServedFromMemoryEqualRowsDecodedFromTheFile() throws {
        let store = try CIOPendingMetricFile(directory: directory)
        var r = row(1)
        r.timestamp = Date(timeIntervalSince1970: 1_775_126_768.75)
        _ = try store.append(r)
        let fresh = try CIOPendingMetricFile(directory: directory)  // knows nothing, decodes the file
        XCTAssertEqual(try store.loadAll(), try fresh.loadAll())
        XCTAssertEqual(try store.loadAll().first?.timestamp, Date(timeIntervalSince1970: 1_775_126_768))
    }

    private final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0  // protected by `lock`
        func add() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }
    }
}
