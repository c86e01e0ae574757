import Foundation
import PushCore
@testable import PushDevice
import TestSupport
import XCTest

/// `WholeSecondISO8601` (the App Group file's timestamps) against the readings it replaced:
/// the text written with an array of digits per field, and parsed digit by digit from an array.
final class WholeSecondISO8601Tests: XCTestCase {
    /// The writing before: each field's digits reversed into an array.
    private func oldString(_ date: Date) -> String {
        var out: [UInt8] = []
        var t = time_t(date.timeIntervalSince1970.rounded(.down))
        var tm = tm()
        gmtime_r(&t, &tm)
        func digits(_ v: Int32, _ width: Int) {
            var magnitude = Int(v.magnitude)
            var reversed: [UInt8] = []
            repeat {
                reversed.append(UInt8(48 + magnitude % 10))
                magnitude /= 10
            } while magnitude > 0
            if v < 0 { out.append(UInt8(ascii: "-")) }
            for _ in reversed.count..<max(width, reversed.count) { out.append(48) }
            out.append(contentsOf: reversed.reversed())
        }
        digits(tm.tm_year + 1900, 4); out.append(UInt8(ascii: "-"))
        digits(tm.tm_mon + 1, 2); out.append(UInt8(ascii: "-"))
        digits(tm.tm_mday, 2); out.append(UInt8(ascii: "T"))
        digits(tm.tm_hour, 2); out.append(UInt8(ascii: ":"))
        digits(tm.tm_min, 2); out.append(UInt8(ascii: ":"))
        digits(tm.tm_sec, 2); out.append(UInt8(ascii: "Z"))
        return String(decoding: out, as: UTF8.self)
    }

    /// The parsing before: an array of the text's bytes, each field digit by digit.
    private func oldDate(_ text: String) -> Date? {
        let b = Array(text.utf8)
        guard b.count == 20, b[4] == 45, b[7] == 45, b[10] == 84, b[13] == 58, b[16] == 58, b[19] == 90 else { return nil }
        func num(_ r: Range<Int>) -> Int32? {
            var v: Int32 = 0
            for i in r { guard (48...57).contains(b[i]) else { return nil }; v = v * 10 + Int32(b[i] - 48) }
            return v
        }
        guard let y = num(0..<4), let mo = num(5..<7), let d = num(8..<10), let h = num(11..<13), let mi = num(14..<16), let s = num(17..<19),
              (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s < 61 else { return nil }
        var tm = tm()
        tm.tm_year = y - 1900; tm.tm_mon = mo - 1; tm.tm_mday = d; tm.tm_hour = h; tm.tm_min = mi; tm.tm_sec = s
        return Date(timeIntervalSince1970: TimeInterval(timegm(&tm)))
    }

    /// Dates from before year 1 to far past 9999 (five-digit and negative years), and the
    /// edges of each field.
    func testWritesTheSameTextAsBefore() {
        var random = SeededRandom(seed: 4121)
        var seconds: [Double] = [0, -1, 59, 60, 3_599, 86_399, 86_400, 1_775_126_768, 253_402_300_799, 253_402_300_800, -62_135_596_800, -62_135_596_801]
        for _ in 0..<5_000 { seconds.append(Double(Int64(bitPattern: random.next()) % 400_000_000_000) + random.unit()) }
        for s in seconds {
            let date = Date(timeIntervalSince1970: s)
            XCTAssertEqual(WholeSecondISO8601.string(date), oldString(date), "\(s)")
        }
        XCTAssertEqual(WholeSecondISO8601.string(Date(timeIntervalSince1970: 1_775_126_768)), "2026-04-02T10:46:08Z")
    }

    /// Written timestamps and seeded edits of them: the same date or nil as before.
    func testReadsTheSameDatesAsBefore() {
        var random = SeededRandom(seed: 4122)
        let alphabet = Array("0123456789-T:Z /a".utf8) + [0x00, 0x2F, 0x3A, 0xC3, 0xFF]
        var read = 0, refused = 0
        for n in 0..<8_000 {
            var text = Array(WholeSecondISO8601.string(Date(timeIntervalSince1970: Double(random.next() % 5_000_000_000))).utf8)
            if n % 4 != 0 {
                for _ in 0...(random.next() % 2) { random.edit(&text, from: alphabet) }
            }
            let string = String(decoding: text, as: UTF8.self)
            let want = oldDate(string)
            XCTAssertEqual(WholeSecondISO8601.date(string), want, string.debugDescription)
            if want == nil { refused += 1 } else { read += 1 }
        }
        XCTAssertGreaterThan(read, 2_000)
        XCTAssertGreaterThan(refused, 2_000)
    }

    /// Every timestamp the file reading takes (`fileDate`: the store's form, or any ISO 8601 date
    /// Foundation reads) is one the store writes back in a form it reads, to the same second.
    /// FuzzAppGroupFile found `00-01-02T10:46:10Z` (year 0 in Foundation's calendar, written by
    /// `gmtime` as `-0001-12-31T10:46:10Z`, which nothing reads): now refused.
    func testEveryTimestampReadIsWrittenBackReadably() {
        XCTAssertNil(CIOPendingMetricFile.fileDate("00-01-02T10:46:10Z"))
        // The range fileDate takes without writing the text: its ends in the store's form.
        XCTAssertEqual(WholeSecondISO8601.string(Date(timeIntervalSince1970: -62_167_219_200)), "0000-01-01T00:00:00Z")
        XCTAssertEqual(WholeSecondISO8601.string(Date(timeIntervalSince1970: -62_167_219_201)), "-0001-12-31T23:59:59Z")
        XCTAssertEqual(WholeSecondISO8601.string(Date(timeIntervalSince1970: 253_402_300_799)), "9999-12-31T23:59:59Z")
        XCTAssertEqual(WholeSecondISO8601.string(Date(timeIntervalSince1970: 253_402_300_800)), "10000-01-01T00:00:00Z")
        XCTAssertNotNil(CIOPendingMetricFile.fileDate("2026-04-02T10:46:10.5Z"))
        XCTAssertNotNil(CIOPendingMetricFile.fileDate("2026-04-02T12:46:10+02:00"))
        var random = SeededRandom(seed: 4123)
        let alphabet = Array("0123456789-T:Z.+z ".utf8)
        var texts = ["00-01-02T10:46:10Z", "0000-01-01T00:00:00Z", "0001-01-01T00:00:00Z", "1582-10-04T00:00:00Z", "1582-10-15T00:00:00Z",
                     "9999-12-31T23:59:60Z", "10000-01-01T00:00:00Z", "2026-04-02T10:46:10.999Z", "2026-04-02T10:46:10-23:59"]
        for n in 0..<4_000 {
            var text = Array(WholeSecondISO8601.string(Date(timeIntervalSince1970: Double(Int64(random.next() % 80_000_000_000) - 62_000_000_000))).utf8)
            for _ in 0...(n % 3) { random.edit(&text, from: alphabet) }
            texts.append(String(decoding: text, as: UTF8.self))
        }
        var read = 0
        for text in texts {
            guard let date = CIOPendingMetricFile.fileDate(text) else { continue }
            read += 1
            let written = WholeSecondISO8601.string(date)
            XCTAssertEqual(CIOPendingMetricFile.fileDate(written), Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)),
                           "\(text) is written as \(written)")
        }
        XCTAssertGreaterThan(read, 500)
    }
}
