import Foundation
import PushCore

/// The bytes of the reference SDK's pending-metrics file (docs/specs/device-side.md §4): what `JSONEncoder`
/// with `.sortedKeys` and `.iso8601` dates writes for `[PendingDeliveryMetric]` — no whitespace,
/// `/` escaped as `\/`, whole-second UTC dates.
///
/// The file is rewritten on every append and remove, so each row is encoded once, when it enters
/// the store, and a rewrite only joins the cached row bytes (`JSONEncoder` writes an array as
/// `[` + elements joined by `,` + `]`, so joining per-row output gives the same bytes).
extension CIOPendingMetricFile {
    /// The whole file for `rows`.
    public static func encode(_ rows: [PendingDeliveryMetric]) -> [UInt8] {
        join(rows.map(encodeRow))
    }

    /// One row's JSON object, exactly as `JSONEncoder` writes it inside the array.
    static func encodeRow(_ row: PendingDeliveryMetric) -> [UInt8] {
        if let fast = fastEncodeRow(row) { return fast }
        return escapedEncodeRow(row)
    }

    /// One row written directly with its strings escaped as `JSONEncoder` escapes them (`"`,
    /// `\`, `/` as `\/`, `\b \t \n \f \r`, other controls as `\u00xx`, lowercase; everything
    /// else as it is): a delivery id that needs escaping went through `JSONEncoder` per row, 13%
    /// of Fuzz/FuzzAppGroupFile's time. CIOPendingMetricEncodingTests compares the bytes.
    static func escapedEncodeRow(_ r: PendingDeliveryMetric) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(130 + r.deliveryID.utf8.count * 2 + r.deviceID.utf8.count + r.event.utf8.count)
        out.append(contentsOf: #"{"delivery_id":"#.utf8)
        JSONValue.appendQuotedEscapingSlashes(r.deliveryID, to: &out)
        out.append(contentsOf: #","device_id":"#.utf8)
        JSONValue.appendQuotedEscapingSlashes(r.deviceID, to: &out)
        out.append(contentsOf: #","event":"#.utf8)
        JSONValue.appendQuotedEscapingSlashes(r.event, to: &out)
        out.append(contentsOf: #","id":""#.utf8)
        r.id.appendUUIDString(to: &out)
        out.append(contentsOf: #"","timestamp":""#.utf8)
        WholeSecondISO8601.append(r.timestamp, to: &out)
        out.append(contentsOf: #""}"#.utf8)
        return out
    }

    /// `[` + `rows` joined by `,` + `]`.
    static func join(_ encodedRows: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(encodedRows.reduce(2) { $0 + $1.count + 1 })
        out.append(UInt8(ascii: "["))
        for (i, row) in encodedRows.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: row)
        }
        out.append(UInt8(ascii: "]"))
        return out
    }

    /// What `JSONEncoder` with `.sortedKeys` and `.iso8601` dates writes.
    static func foundationEncode(_ rows: [PendingDeliveryMetric]) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // The reference uses `.iso8601`; the same text, formatted without a formatter per date.
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var c = encoder.singleValueContainer()
            try c.encode(WholeSecondISO8601.string(date))
        }
        // Encoding plain strings, UUIDs and dates cannot fail.
        return Array((try? encoder.encode(rows)) ?? Data("[]".utf8))
    }

    /// The whole file written directly, or nil when some string needs escaping (delivery ids and
    /// tokens are base64url/hex, so in practice none does).
    static func fastEncode(_ rows: [PendingDeliveryMetric]) -> [UInt8]? {
        var encoded: [[UInt8]] = []
        encoded.reserveCapacity(rows.count)
        for row in rows {
            guard let bytes = fastEncodeRow(row) else { return nil }
            encoded.append(bytes)
        }
        return join(encoded)
    }

    /// One row written directly, keys in sorted order; nil when a string needs escaping.
    static func fastEncodeRow(_ r: PendingDeliveryMetric) -> [UInt8]? {
        // No byte JSONEncoder escapes (a control, `"`, `\`, `/`) and none >= 0x80: the JSON
        // readers' word scan, then `memchr` for `/` (a loop over each byte traced every
        // comparison in the fuzz build).
        func plain(_ s: String) -> Bool {
            var s = s
            return s.withUTF8 { b in b.endOfPlainJSONText(from: 0) == b.count && b.firstIndex(of: UInt8(ascii: "/"), in: 0..<b.count) == nil }
        }
        guard plain(r.deliveryID), plain(r.deviceID), plain(r.event) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(120 + r.deliveryID.utf8.count + r.deviceID.utf8.count + r.event.utf8.count)
        out.append(contentsOf: #"{"delivery_id":""#.utf8)
        out.append(contentsOf: r.deliveryID.utf8)
        out.append(contentsOf: #"","device_id":""#.utf8)
        out.append(contentsOf: r.deviceID.utf8)
        out.append(contentsOf: #"","event":""#.utf8)
        out.append(contentsOf: r.event.utf8)
        out.append(contentsOf: #"","id":""#.utf8)
        r.id.appendUUIDString(to: &out)
        out.append(contentsOf: #"","timestamp":""#.utf8)
        WholeSecondISO8601.append(r.timestamp, to: &out)
        out.append(contentsOf: #""}"#.utf8)
        return out
    }

    /// Rows from file bytes; nil when they do not decode (the SDK then treats the file as empty).
    /// A file in the form the store writes (`encode`: rows with the five keys in order, ASCII
    /// strings without escapes) is read directly (`canonicalDecode`); any other file goes through
    /// `JSONDecoder` (`foundationDecode`, the reference's reading), which gives the same rows for
    /// a file in that form.
    public static func decode(_ bytes: [UInt8]) -> [PendingDeliveryMetric]? {
        canonicalDecode(bytes) ?? foundationDecode(bytes)
    }

    /// What `JSONDecoder` reads from `bytes` (the reference SDK's decoding), nil when it throws.
    static func foundationDecode(_ bytes: [UInt8]) -> [PendingDeliveryMetric]? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let c = try decoder.singleValueContainer()
            let text = try c.decode(String.self)
            if let date = fileDate(text) { return date }
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "not an ISO 8601 date: \(text)")
        }
        return try? decoder.decode([PendingDeliveryMetric].self, from: Data(bytes))
    }

    /// A timestamp of the file: whole-second UTC as the store writes it, or an ISO 8601 date
    /// whose whole-second text, as the store writes it, reads back to the same second. A date
    /// the store could not write back would make the file it writes unreadable (every row lost on
    /// the next read): FuzzAppGroupFile found `00-01-02T10:46:10Z`, a two-digit year that
    /// Foundation's ISO 8601 parser reads as year 0 of its calendar (Julian before 1582), which
    /// `gmtime`'s proleptic Gregorian calendar writes as `-0001-12-31T10:46:10Z`, a text neither
    /// reading takes. Such a timestamp is refused, as a row whose timestamp does not read is.
    /// (A store-form text always reads back: `WholeSecondISO8601.date` and `.append` use the
    /// same calendar.) Tests/Corpus/fuzz-regressions/FuzzAppGroupFile holds the input.
    static func fileDate(_ text: String) -> Date? {
        if let date = WholeSecondISO8601.date(text) { return date }
        guard let date = try? iso8601.parse(text) else { return nil }
        // From 0000-01-01 up to 10000-01-01 the store writes four-digit years, which
        // `WholeSecondISO8601.date` reads back to the same second (both use `gmtime`'s calendar).
        if (-62_167_219_200 ..< 253_402_300_800).contains(date.timeIntervalSince1970) { return date }
        let written = WholeSecondISO8601.string(date)
        let second = Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
        guard (WholeSecondISO8601.date(written) ?? (try? iso8601.parse(written))) == second else { return nil }
        return date
    }

    /// `Date(text, strategy: .iso8601)`'s style, made once: `.iso8601` builds a new one per call
    /// (its time zone and calendar), which was a fifth of reading a candidate row's timestamp
    /// that is not in the store's form.
    private static let iso8601 = Date.ISO8601FormatStyle()

    /// A JSON string's text from `i` (just after its opening quote) up to its closing quote
    /// (consumed), decoding the escapes `JSONEncoder` writes; nil for a control character,
    /// invalid UTF-8 or any other escape (`canonicalDecode`, `readCandidate`).
    static func escapedText(_ b: [UInt8], _ i: inout Int) -> String? {
        var out: [UInt8] = []
        while i < b.count {
            // Plain bytes up to the next quote, backslash, control or byte >= 0x80, copied whole
            // (the word scan: in the fuzz build a loop over each byte traced every comparison).
            let plainEnd = b.endOfPlainJSONText(from: i)
            if plainEnd > i {
                out.append(contentsOf: b[i..<plainEnd])
                i = plainEnd
                guard i < b.count else { break }
            }
            let c = b[i]
            i += 1
            if c == UInt8(ascii: "\"") { return String(validating: out, as: UTF8.self) }
            guard c >= 0x20 else { return nil }
            guard c == UInt8(ascii: "\\") else {
                out.append(c)
                continue
            }
            guard i < b.count else { return nil }
            let e = b[i]
            i += 1
            if let byte = JSONEscape.byte(ofShortEscape: e) {
                out.append(byte)
                continue
            }
            switch e {
            case UInt8(ascii: "u"):
                // `\u00` and two lowercase hex digits below 0x20, as JSONEncoder writes a control.
                guard b.count - i >= 4, b[i] == UInt8(ascii: "0"), b[i + 1] == UInt8(ascii: "0") else { return nil }
                func hex(_ d: UInt8) -> UInt8? {
                    switch d {
                    case UInt8(ascii: "0")...UInt8(ascii: "9"): return d - UInt8(ascii: "0")
                    case UInt8(ascii: "a")...UInt8(ascii: "f"): return d - UInt8(ascii: "a") + 10
                    default: return nil
                    }
                }
                guard let high = hex(b[i + 2]), let low = hex(b[i + 3]), high < 2 else { return nil }
                let value = high << 4 | low
                // JSONEncoder writes these five by their short escapes, never as \u00xx.
                guard ![0x08, 0x09, 0x0A, 0x0C, 0x0D].contains(value) else { return nil }
                out.append(value)
                i += 4
            default: return nil
            }
        }
        return nil
    }

    /// The rows of a file exactly in the form `encode` writes (`[` rows `,` `]`, each row
    /// `{"delivery_id":"…","device_id":"…","event":"…","id":"…","timestamp":"…"}` with strings
    /// of valid UTF-8 without control characters, and only the escapes `JSONEncoder` writes:
    /// `\"` `\\` `\/` `\b` `\t` `\n` `\f` `\r` and `\u00xx` (lowercase) for the other controls),
    /// decoded without Foundation; nil for anything else, including an id or timestamp that does
    /// not read (the caller then asks `JSONDecoder`, which refuses those too). The store's own
    /// file always takes this path.
    static func canonicalDecode(_ b: [UInt8]) -> [PendingDeliveryMetric]? {
        var i = 0
        // Inlined, so `hasBytes` compares each literal as constant words.
        @inline(__always) func literal(_ text: StaticString) -> Bool {
            guard b.hasBytes(text, at: i) else { return false }
            i += text.utf8CodeUnitCount
            return true
        }
        // A string's text up to its closing quote (consumed); nil for a control character,
        // invalid UTF-8 or an escape `JSONEncoder` does not write.
        func text() -> String? {
            let start = i
            var ascii = true
            while i < b.count {
                // Plain bytes eight at a time; the first other one decides.
                i = b.endOfPlainJSONText(from: i)
                guard i < b.count else { break }
                let c = b[i]
                if c == UInt8(ascii: "\"") {
                    i += 1
                    return ascii ? String(decoding: b[start..<(i - 1)], as: UTF8.self) : String(validating: b[start..<(i - 1)], as: UTF8.self)
                }
                if c == UInt8(ascii: "\\") {
                    i = start
                    return escapedText()
                }
                guard c >= 0x20 else { return nil }
                ascii = false  // a byte >= 0x80
                i += 1
            }
            return nil
        }
        // `text()` for a string with escapes, read again from its start.
        func escapedText() -> String? { Self.escapedText(b, &i) }
        guard literal("[") else { return nil }
        var rows: [PendingDeliveryMetric] = []
        if literal("]") { return i == b.count ? rows : nil }
        while true {
            guard literal(#"{"delivery_id":""#), let deliveryID = text(),
                  literal(#","device_id":""#), let deviceID = text(),
                  literal(#","event":""#), let event = text(),
                  literal(#","id":""#), let idText = text(), let id = UUID(fastUUIDString: idText),
                  literal(#","timestamp":""#), let dateText = text(), let timestamp = fileDate(dateText),
                  literal("}")
            else { return nil }
            rows.append(PendingDeliveryMetric(id: id, deliveryID: deliveryID, deviceID: deviceID, event: event, timestamp: timestamp))
            if literal(",") { continue }
            guard literal("]"), i == b.count else { return nil }
            return rows
        }
    }
}

/// `yyyy-MM-ddTHH:mm:ssZ` in UTC, the text `JSONEncoder`'s `.iso8601` strategy writes, by hand:
/// the store is rewritten on every append, and a formatter per date dominated its cost.
public enum WholeSecondISO8601 {
    public static func string(_ date: Date) -> String {
        var out: [UInt8] = []
        append(date, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the text's UTF-8 bytes to `out`.
    static func append(_ date: Date, to out: inout [UInt8]) {
        var t = time_t(date.timeIntervalSince1970.rounded(.down))
        var tm = tm()
        gmtime_r(&t, &tm)
        // Zero-padded to `width` digits; wider values (and the sign of a negative year) as they are.
        // (Written into `out` from the highest digit down: no array per field. WholeSecondISO8601Tests
        // compares the text with the reading before, which reversed an array of digits.)
        func digits(_ v: Int32, _ width: Int) {
            let magnitude = Int(v.magnitude)
            var count = 1, power = 1  // power = 10^(count - 1), the highest digit's place
            while magnitude / power >= 10 {
                power *= 10
                count += 1
            }
            if v < 0 { out.append(UInt8(ascii: "-")) }
            for _ in count..<max(width, count) { out.append(48) }
            while power > 0 {
                out.append(UInt8(48 + magnitude / power % 10))
                power /= 10
            }
        }
        digits(tm.tm_year + 1900, 4); out.append(UInt8(ascii: "-"))
        digits(tm.tm_mon + 1, 2); out.append(UInt8(ascii: "-"))
        digits(tm.tm_mday, 2); out.append(UInt8(ascii: "T"))
        digits(tm.tm_hour, 2); out.append(UInt8(ascii: ":"))
        digits(tm.tm_min, 2); out.append(UInt8(ascii: ":"))
        digits(tm.tm_sec, 2); out.append(UInt8(ascii: "Z"))
    }

    /// Parses exactly `yyyy-MM-ddTHH:mm:ssZ`; nil for anything else. Read in place with one
    /// test for all fourteen digits (every row of the file has a timestamp, and in the fuzz
    /// build a loop per digit traced each comparison); `WholeSecondISO8601Tests` compares it
    /// with a reading digit by digit.
    static func date(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { b -> Date? in
            guard b.count == 20, b[4] == 45, b[7] == 45, b[10] == 84, b[13] == 58, b[16] == 58, b[19] == 90 else { return nil }
            // A byte that is not a digit leaves a value of 10 or more, so `bad` ends at 16 or more.
            var bad: UInt16 = 0
            func digit(_ p: Int) -> Int32 {
                let v = UInt16(b[p] &- 48)
                bad |= v &+ 6
                return Int32(v)
            }
            func two(_ p: Int) -> Int32 { digit(p) * 10 + digit(p + 1) }
            let y = two(0) * 100 + two(2), mo = two(5), d = two(8), h = two(11), mi = two(14), s = two(17)
            guard bad < 16, (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s < 61 else { return nil }
            var tm = tm()
            tm.tm_year = y - 1900; tm.tm_mon = mo - 1; tm.tm_mday = d; tm.tm_hour = h; tm.tm_min = mi; tm.tm_sec = s
            return Date(timeIntervalSince1970: TimeInterval(timegm(&tm)))
        }
    }
}
