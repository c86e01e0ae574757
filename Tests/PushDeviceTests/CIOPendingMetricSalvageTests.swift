import Foundation
@testable import PushDevice
import TestSupport
import XCTest

/// A damaged pending-metrics file (truncated, a corrupted row, garbage between rows) loses only
/// the rows the damage touched when read with `intactRows`, which the `improved` SDK mode uses;
/// the reference mode keeps the SDK's rule (an undecodable file counts as empty,
/// docs/specs/device-side.md §4). The inputs Fuzz/FuzzAppGroupFile found are replayed here.
final class CIOPendingMetricSalvageTests: XCTestCase {
    private var container: URL!

    override func setUp() { container = Fixtures.temporaryDirectory("cio-salvage") }
    override func tearDown() { try? FileManager.default.removeItem(at: container) }

    private func row(_ n: Int) -> PendingDeliveryMetric {
        PendingDeliveryMetric(id: UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", n))!,
                              deliveryID: "dlv-\(n)", deviceID: "token-\(n)", timestamp: Date(timeIntervalSince1970: 1_775_126_768 + Double(n)))
    }

    private var rows: [PendingDeliveryMetric] { (1...3).map(row) }

    func testEveryTruncationKeepsTheRowsBeforeIt() {
        let encoded = rows.map(CIOPendingMetricFile.encodeRow)
        let file = CIOPendingMetricFile.join(encoded)
        var rowEnds: [Int] = []
        var offset = 1
        for r in encoded {
            offset += r.count
            rowEnds.append(offset)
            offset += 1
        }
        for cut in 0...file.count {
            let expected = zip(rows, rowEnds).filter { $0.1 <= cut }.map(\.0)
            XCTAssertEqual(CIOPendingMetricFile.intactRows(Array(file[..<cut])), expected, "file cut after \(cut) bytes")
        }
    }

    func testACorruptedRowCostsOnlyThatRow() {
        var text = String(decoding: CIOPendingMetricFile.encode(rows), as: UTF8.self)
        text = text.replacingOccurrences(of: "00000000-0000-4000-8000-000000000002", with: "00000000-0000-4000-8000-00000000000Z")
        XCTAssertNil(CIOPendingMetricFile.decode(Array(text.utf8)))
        XCTAssertEqual(CIOPendingMetricFile.intactRows(Array(text.utf8)).map(\.deliveryID), ["dlv-1", "dlv-3"])
    }

    func testAnUnterminatedStringBeforeARowDoesNotSwallowIt() {
        let file = Array(#"[{"delivery_id":"torn"#.utf8) + CIOPendingMetricFile.encodeRow(row(2)) + Array("]".utf8)
        XCTAssertEqual(CIOPendingMetricFile.intactRows(file).map(\.deliveryID), ["dlv-2"])
    }

    func testGarbageBetweenRowsIsSkipped() {
        let file = Array("[".utf8) + CIOPendingMetricFile.encodeRow(row(1)) + Array(#",\#u{0}}{]garbage{"x":{"#.utf8)
            + CIOPendingMetricFile.encodeRow(row(2)) + Array("]".utf8)
        XCTAssertEqual(CIOPendingMetricFile.intactRows(file).map(\.deliveryID), ["dlv-1", "dlv-2"])
    }

    func testAFileThatDecodesReadsTheSameEitherWay() {
        let file = CIOPendingMetricFile.encode(rows)
        XCTAssertEqual(CIOPendingMetricFile.intactRows(file), CIOPendingMetricFile.decode(file))
        XCTAssertEqual(CIOPendingMetricFile.intactRows(Array("[]".utf8)), [])
        XCTAssertEqual(CIOPendingMetricFile.intactRows([]), [])
    }

    func testImprovedModeStoreKeepsTheIntactRowsOfATruncatedFile() throws {
        let improved = AppProfile(bundleID: "io.pushlab.demo", extensionBundleID: "io.pushlab.demo.richpush", cdpAPIKey: "k",
                                  sdkMode: .improved, appGroupStore: .cio)
        let store = try PendingMetricStores.open(profile: improved, process: .app, container: container)
        let file = CIOPendingMetricFile.encode(rows)
        try Data(file.dropLast(20)).write(to: URL(fileURLWithPath: try XCTUnwrap(store.path)))
        XCTAssertEqual(try store.loadAll().map(\.deliveryID), ["dlv-1", "dlv-2"])
        // The next write keeps them: the file is rewritten whole, with the new row.
        _ = try store.append(row(4))
        let reread = try Data(contentsOf: URL(fileURLWithPath: try XCTUnwrap(store.path)))
        XCTAssertEqual(CIOPendingMetricFile.decode(Array(reread))?.map(\.deliveryID), ["dlv-1", "dlv-2", "dlv-4"])

        // The reference SDK mode reads the same damaged file as empty (docs/specs/device-side.md §4).
        let reference = AppProfile(bundleID: "io.pushlab.demo", extensionBundleID: "io.pushlab.demo.richpush", cdpAPIKey: "k",
                                   sdkMode: .cio4, appGroupStore: .cio)
        let referenceStore = try PendingMetricStores.open(profile: reference, process: .app, container: container)
        try Data(file.dropLast(20)).write(to: URL(fileURLWithPath: try XCTUnwrap(referenceStore.path)))
        XCTAssertEqual(try referenceStore.loadAll(), [])
    }

    /// Every seed of Fuzz/FuzzAppGroupFile and every input it found (Tests/Corpus/fuzz-regressions/
    /// FuzzAppGroupFile), read as a file: neither parser traps, and a file that decodes reads the
    /// same through `intactRows`. The damaged seeds keep their whole rows.
    func testFuzzSeedsAndRegressionInputs() throws {
        var files: [String] = []
        for directory in ["Fuzz/seeds/FuzzAppGroupFile", "Tests/Corpus/fuzz-regressions/FuzzAppGroupFile"].map(Fixtures.path) {
            files += ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).map { directory + "/" + $0 }
        }
        XCTAssertGreaterThanOrEqual(files.count, 8)
        for path in files {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let salvaged = CIOPendingMetricFile.intactRows(bytes)
            guard let decoded = CIOPendingMetricFile.decode(bytes) else { continue }
            XCTAssertEqual(salvaged, decoded, path)
            // The store's file for those rows reads back (whole-second timestamps), as the fuzz target checks.
            let whole = decoded.map { row -> PendingDeliveryMetric in
                var r = row
                r.timestamp = Date(timeIntervalSince1970: r.timestamp.timeIntervalSince1970.rounded(.down))
                return r
            }
            XCTAssertEqual(CIOPendingMetricFile.decode(CIOPendingMetricFile.encode(decoded)), whole, path)
        }
        let seeds = Fixtures.path("Fuzz/seeds/FuzzAppGroupFile")
        func rows(_ name: String) throws -> [String] {
            CIOPendingMetricFile.intactRows([UInt8](try Data(contentsOf: URL(fileURLWithPath: seeds + "/" + name)))).map(\.deliveryID)
        }
        XCTAssertEqual(try rows("reference-two-rows"), ["dlv-1", "dlv-2"])
        XCTAssertEqual(try rows("reference-truncated"), ["dlv-1"])
        XCTAssertEqual(try rows("reference-bad-row"), ["dlv-2"])
    }
}
