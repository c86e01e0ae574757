import Foundation
@testable import PushDevice
import TestSupport
import XCTest

/// The `cio` App Group store is the reference SDK's file, byte for byte (docs/specs/device-side.md §4).
final class CIOPendingMetricFileTests: XCTestCase {
    private var container: URL!

    override func setUp() { container = Fixtures.temporaryDirectory("cio-store") }
    override func tearDown() { try? FileManager.default.removeItem(at: container) }

    private func store() throws -> CIOPendingMetricFile {
        try CIOPendingMetricFile(directory: container.appendingPathComponent("io.customer"))
    }

    private func row(_ n: Int, at seconds: TimeInterval = 1_775_126_768) -> PendingDeliveryMetric {
        PendingDeliveryMetric(id: UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", n))!,
                              deliveryID: "dlv-\(n)", deviceID: "token-\(n)", timestamp: Date(timeIntervalSince1970: seconds + Double(n)))
    }

    func testWrittenFileEqualsTheReferenceBytes() throws {
        let s = try store()
        var r = row(1)
        r.timestamp = Date(timeIntervalSince1970: 1_775_126_768.75)  // 2026-04-02T10:46:08.750Z: whole seconds on disk
        _ = try s.append(r)
        _ = try s.append(row(2))
        // Written by hand from docs/specs/device-side.md §4: a JSON array, keys sorted, whole-second UTC dates.
        let expected = #"[{"delivery_id":"dlv-1","device_id":"token-1","event":"delivered","id":"00000000-0000-4000-8000-000000000001","timestamp":"2026-04-02T10:46:08Z"},{"delivery_id":"dlv-2","device_id":"token-2","event":"delivered","id":"00000000-0000-4000-8000-000000000002","timestamp":"2026-04-02T10:46:10Z"}]"#
        let path = container.appendingPathComponent("io.customer/pending_push_delivery_metrics.json").path
        XCTAssertEqual(String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self), expected)
    }

    func testReferenceFileIsReadBack() throws {
        let s = try store()
        let bytes = #"[{"delivery_id":"abc","device_id":"tok","event":"delivered","id":"0F8B3E5A-1C2D-4E5F-8A9B-0C1D2E3F4A5B","timestamp":"2026-04-02T10:46:08Z"}]"#
        try Data(bytes.utf8).write(to: URL(fileURLWithPath: s.path!))
        let rows = try s.loadAll()
        XCTAssertEqual(rows.count, 1)
        XCTAssertEqual(rows[0].deliveryID, "abc")
        XCTAssertEqual(rows[0].timestamp, Date(timeIntervalSince1970: 1_775_126_768))
    }

    func testCapKeepsTheNewest100Rows() throws {
        let s = try store()
        var dropped = 0
        for n in 1...105 {
            if case .stored(let d) = try s.append(row(n)) { dropped += d }
        }
        let rows = try s.loadAll()
        XCTAssertEqual(rows.count, 100)
        XCTAssertEqual(dropped, 5)
        XCTAssertEqual(rows.first?.deliveryID, "dlv-6")
        XCTAssertEqual(rows.last?.deliveryID, "dlv-105")
    }

    func testCorruptFileCountsAsEmptyAndIsOverwritten() throws {
        let s = try store()
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: s.path!))
        XCTAssertEqual(try s.loadAll(), [])
        _ = try s.append(row(7))
        XCTAssertEqual(try s.loadAll().map(\.deliveryID), ["dlv-7"])
    }

    func testRemoveDeletesOnlyTheGivenIDs() throws {
        let s = try store()
        for n in 1...3 { _ = try s.append(row(n)) }
        XCTAssertEqual(try s.remove(ids: [row(2).id]), 1)
        XCTAssertEqual(try s.loadAll().map(\.deliveryID), ["dlv-1", "dlv-3"])
        XCTAssertEqual(try s.remove(ids: [row(2).id]), 0)
    }

    func testStoreIsOffWhenTheExtensionSuffixIsWrong() throws {
        let profile = try AppProfile.load(path: Fixtures.path("payloads/apps/misconfigured-suffix.json"))
        let nse = try PendingMetricStores.open(profile: profile, process: .notificationServiceExtension, container: container)
        XCTAssertEqual(nse.kind, .off)
        guard case .disabled = try nse.append(row(1)) else { return XCTFail("expected the store to be off") }
        let app = try PendingMetricStores.open(profile: profile, process: .app, container: container)
        XCTAssertEqual(app.kind, .cio)
        XCTAssertEqual(try app.loadAll(), [])
    }
}

final class CIOPendingMetricEncodingTests: XCTestCase {
    func testDirectEncodingEqualsJSONEncoderBytes() {
        let rows = (0..<5).map { n in
            PendingDeliveryMetric(deliveryID: "RPILAgUBcRhIBqSfeiIwdIYJKxT\(n)", deviceID: "0f8b3e5a\(n)", timestamp: Date(timeIntervalSince1970: 1_775_126_768 + Double(n) * 3600.7))
        }
        XCTAssertEqual(CIOPendingMetricFile.fastEncode(rows), CIOPendingMetricFile.foundationEncode(rows))
    }

    func testStringsThatNeedEscapingFallBackToJSONEncoder() {
        let row = PendingDeliveryMetric(deliveryID: #"a/b"c"#, deviceID: "t", timestamp: Date(timeIntervalSince1970: 0))
        XCTAssertNil(CIOPendingMetricFile.fastEncode([row]))
        XCTAssertEqual(CIOPendingMetricFile.encode([row]), CIOPendingMetricFile.foundationEncode([row]))
        XCTAssertEqual(CIOPendingMetricFile.decode(CIOPendingMetricFile.encode([row])), [row])
    }

    /// The store's own form is read without JSONDecoder (`canonicalDecode`); wherever that
    /// reading succeeds it must equal JSONDecoder's, and it must give up on everything else
    /// (escapes, whitespace, other key orders, a bad id or date, trailing bytes), which JSONDecoder
    /// then reads. Checked on written files and on every kept input of Fuzz/FuzzAppGroupFile.
    func testDirectReadingEqualsJSONDecoderWhereverItReads() throws {
        let rows = (0..<4).map { n in
            PendingDeliveryMetric(deliveryID: "RPILAgUBcRhIBqSfeiIwdIYJKxT\(n)", deviceID: "0f8b3e5a\(n)", timestamp: Date(timeIntervalSince1970: 1_775_126_768 + Double(n) * 3600))
        }
        for count in 0...rows.count {
            let file = CIOPendingMetricFile.encode(Array(rows.prefix(count)))
            XCTAssertEqual(CIOPendingMetricFile.canonicalDecode(file), Array(rows.prefix(count)))
            XCTAssertEqual(CIOPendingMetricFile.foundationDecode(file), Array(rows.prefix(count)))
        }
        let one = String(decoding: CIOPendingMetricFile.encode([rows[0]]), as: UTF8.self)
        let variants = [
            one.replacingOccurrences(of: "RPIL", with: "R\\/PIL"),                     // an escape
            one.replacingOccurrences(of: ",\"device_id\"", with: ", \"device_id\""),     // whitespace
            one.replacingOccurrences(of: "RPIL", with: "\u{e9}"),                    // non-ASCII
            one + " ",                                                                // trailing bytes
            one.replacingOccurrences(of: "2026-04-02T", with: "2026-14-02T"),         // not a date
            String(one.dropLast()),                                                   // truncated
        ]
        for variant in variants {
            XCTAssertNil(CIOPendingMetricFile.canonicalDecode(Array(variant.utf8)), variant)
        }
        // JSONDecoder still reads those that are JSON with a valid id and date.
        XCTAssertEqual(CIOPendingMetricFile.decode(Array(variants[1].utf8)), [rows[0]])
        XCTAssertEqual(CIOPendingMetricFile.decode(Array(variants[3].utf8)), [rows[0]])
        XCTAssertNil(CIOPendingMetricFile.decode(Array(variants[4].utf8)))
        var escaped = rows[0]
        escaped.deliveryID = "R/PILAgUBcRhIBqSfeiIwdIYJKxT0"
        XCTAssertEqual(CIOPendingMetricFile.decode(Array(variants[0].utf8)), [escaped])

        var checked = 0, direct = 0
        for folder in ["Fuzz/seeds/FuzzAppGroupFile", "Fuzz/corpus/FuzzAppGroupFile", "Tests/Corpus/fuzz-regressions/FuzzAppGroupFile"] {
            let path = Fixtures.path(folder)
            for file in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
                let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path + "/" + file)))
                checked += 1
                guard let read = CIOPendingMetricFile.canonicalDecode(bytes) else { continue }
                direct += 1
                XCTAssertEqual(read, CIOPendingMetricFile.foundationDecode(bytes), "\(folder)/\(file)")
            }
        }
        XCTAssertGreaterThan(checked, 10)
        XCTAssertGreaterThan(direct, 0)
    }
}
