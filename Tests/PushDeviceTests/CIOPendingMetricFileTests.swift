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

    /// Strings that need escaping: written by hand (`escapedEncodeRow`) with exactly
    /// JSONEncoder's bytes, and read back without JSONDecoder (`canonicalDecode`) to the same rows.
    /// Every scalar below 0x80, non-ASCII text and an emoji, alone and together, in each field.
    func testStringsThatNeedEscapingAreWrittenAndReadAsJSONEncoderAndJSONDecoderDo() {
        let row = PendingDeliveryMetric(deliveryID: #"a/b"c"#, deviceID: "t", timestamp: Date(timeIntervalSince1970: 0))
        XCTAssertNil(CIOPendingMetricFile.fastEncode([row]))
        var texts = (0..<0x80).map { String(Character(Unicode.Scalar(UInt8($0)))) }
        texts += [String((0..<0x80).map { Character(Unicode.Scalar(UInt8($0))) }), "é ü 日本 \u{2028}", "👍🏽 e\u{301}", "\u{FEFF}\u{FFFE}", "x\\/\\u0041"]
        var rows: [PendingDeliveryMetric] = []
        for (n, text) in texts.enumerated() {
            let time = Date(timeIntervalSince1970: 1_775_126_768 + Double(n))
            rows.append(PendingDeliveryMetric(deliveryID: text, deviceID: "0f8b", timestamp: time))
            rows.append(PendingDeliveryMetric(deliveryID: "d", deviceID: text, event: text, timestamp: time))
        }
        for r in rows {
            let encoded = CIOPendingMetricFile.encodeRow(r)
            XCTAssertEqual(String(decoding: encoded, as: UTF8.self), String(decoding: CIOPendingMetricFile.foundationEncode([r]).dropFirst().dropLast(), as: UTF8.self))
            let file = CIOPendingMetricFile.join([encoded])
            XCTAssertEqual(CIOPendingMetricFile.canonicalDecode(file), [r], String(decoding: file, as: UTF8.self))
            XCTAssertEqual(CIOPendingMetricFile.foundationDecode(file), [r])
        }
        XCTAssertEqual(CIOPendingMetricFile.encode(rows), CIOPendingMetricFile.foundationEncode(rows))
        XCTAssertEqual(CIOPendingMetricFile.canonicalDecode(CIOPendingMetricFile.encode(rows)), rows)
    }

    /// The store's own form is read without JSONDecoder (`canonicalDecode`); wherever that
    /// reading succeeds it must equal JSONDecoder's, and it must give up on everything else
    /// (escapes JSONEncoder does not write, whitespace, other key orders, a bad id or date, trailing
    /// bytes, invalid UTF-8), which JSONDecoder
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
            one.replacingOccurrences(of: "RPIL", with: "R\\u0041PIL"),                 // an escape JSONEncoder does not write
            one.replacingOccurrences(of: ",\"device_id\"", with: ", \"device_id\""),     // whitespace
            one.replacingOccurrences(of: "RPIL", with: "\\u00e9"),                    // non-ASCII as an escape
            one + " ",                                                                // trailing bytes
            one.replacingOccurrences(of: "2026-04-02T", with: "2026-14-02T"),         // not a date
            String(one.dropLast()),                                                   // truncated
            one.replacingOccurrences(of: "RPIL", with: "R\\u000aPIL"),                 // \n as \u000a (JSONEncoder writes \n)
            one.replacingOccurrences(of: "RPIL", with: "R\\u001FPIL"),                 // upper-case hex
            one.replacingOccurrences(of: "RPIL", with: "R\tPIL"),                     // a raw control character
        ]
        for variant in variants {
            XCTAssertNil(CIOPendingMetricFile.canonicalDecode(Array(variant.utf8)), variant)
        }
        // Bytes that are not UTF-8: neither reading accepts them.
        var invalid = Array(one.utf8)
        invalid[invalid.firstIndex(of: UInt8(ascii: "R"))!] = 0xFF
        XCTAssertNil(CIOPendingMetricFile.canonicalDecode(invalid))
        XCTAssertNil(CIOPendingMetricFile.foundationDecode(invalid))
        // JSONDecoder still reads those that are JSON with a valid id and date.
        XCTAssertEqual(CIOPendingMetricFile.decode(Array(variants[1].utf8)), [rows[0]])
        XCTAssertEqual(CIOPendingMetricFile.decode(Array(variants[3].utf8)), [rows[0]])
        XCTAssertNil(CIOPendingMetricFile.decode(Array(variants[4].utf8)))
        var escaped = rows[0]
        escaped.deliveryID = "R/PILAgUBcRhIBqSfeiIwdIYJKxT0"
        XCTAssertEqual(CIOPendingMetricFile.decode(Array(one.replacingOccurrences(of: "RPIL", with: "R\\/PIL").utf8)), [escaped])
        XCTAssertEqual(CIOPendingMetricFile.canonicalDecode(Array(one.replacingOccurrences(of: "RPIL", with: "R\\/PIL").utf8)), [escaped])

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
