import Foundation
import PushCore

/// Reading a damaged pending-metrics file (docs/specs/device-side.md §4) without losing the rows
/// that are still whole. The reference SDK treats a file that does not decode as empty, so one
/// torn or corrupted byte loses every pending metric; `intactRows` keeps each row object that is
/// still complete and valid on its own.
extension CIOPendingMetricFile {
    /// The rows of `bytes`: everything `decode` returns when the file decodes; otherwise every
    /// complete row object found in it, in file order (a truncated tail, a corrupted row or
    /// garbage between rows costs only the rows it touches).
    ///
    /// A row is a flat JSON object (no nested `{`) that decodes as a `PendingDeliveryMetric`.
    /// Scanning tries each `{` outside an accepted row as a candidate. An intact row is always
    /// found: a candidate that starts in damage and runs into an intact row meets the row's `{`
    /// either outside a string (nested: refused) or inside one, where the row's next `"` closes
    /// that string and is followed by a bare key (not JSON: refused), so no refused or accepted
    /// candidate can swallow it.
    public static func intactRows(_ bytes: [UInt8]) -> [PendingDeliveryMetric] {
        decode(bytes) ?? salvagedRows(bytes)
    }

    /// The complete row objects of `bytes`, in file order (`intactRows` of a file that does not
    /// decode). Each `{` is read by `readCandidate` first; only a candidate it leaves undecided is
    /// delimited by `flatObjectEnd` and decoded by `decodeRow` (`JSONDecoder` unless it is in the
    /// store's form). `decoderOnly` does that for every `{`: the reading before `readCandidate`,
    /// which CIOPendingMetricCandidateTests and Fuzz/FuzzAppGroupFile compare with this one.
    /// `decodingRow` is `decodeRow` (the fuzz target passes one that remembers its answers by
    /// the object's bytes: `decodeRow` depends on nothing else).
    static func salvagedRows(_ bytes: [UInt8], decoderOnly: Bool = false,
                             decodingRow: ([UInt8]) -> PendingDeliveryMetric? = decodeRow) -> [PendingDeliveryMetric] {
        var rows: [PendingDeliveryMetric] = []
        var start = 0
        while let open = bytes.firstIndex(of: UInt8(ascii: "{"), in: start..<bytes.count) {
            if !decoderOnly {
                switch readCandidate(bytes, open: open) {
                case .row(let row, let close):
                    rows.append(row)
                    start = close + 1
                    continue
                case .refused:
                    start = open + 1
                    continue
                case .undecided:
                    break
                }
            }
            // Shorter than any row (five keys, a 36-character UUID): not worth a decode.
            guard let close = flatObjectEnd(bytes, from: open), close - open + 1 >= minimumRowBytes,
                  let row = decodingRow(Array(bytes[open...close])) else {
                start = open + 1
                continue
            }
            rows.append(row)
            start = close + 1
        }
        return rows
    }

    /// `{"delivery_id":"","device_id":"","event":"","id":"","timestamp":""}` plus a UUID: every
    /// row has all five keys (none is optional), so no object shorter than this decodes as one.
    static let minimumRowBytes = 67 + 36

    /// The index of the `}` closing the object that opens at `open`, or nil when the bytes end
    /// first or another `{` opens outside a string (rows are flat).
    static func flatObjectEnd(_ bytes: [UInt8], from open: Int) -> Int? {
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        var i = open + 1
        while i < bytes.count {
            let b = bytes[i]
            if b == quote {
                // A string, to its closing quote (a `\` takes the byte after it along), its plain
                // bytes passed eight at a time. CIOPendingMetricCandidateTests compares this with
                // a reading byte by byte.
                i += 1
                while true {
                    i = bytes.endOfPlainJSONText(from: i)
                    guard i < bytes.count else { return nil }
                    if bytes[i] == quote { break }
                    i += bytes[i] == backslash ? 2 : 1
                }
            } else if b == UInt8(ascii: "{") {
                return nil
            } else if b == UInt8(ascii: "}") {
                return i
            }
            i += 1
        }
        return nil
    }

    /// One row object, decoded as `decode` decodes the rows of a whole file.
    static func decodeRow(_ object: [UInt8]) -> PendingDeliveryMetric? {
        var array = [UInt8(ascii: "[")]
        array.append(contentsOf: object)
        array.append(UInt8(ascii: "]"))
        guard let rows = decode(array), rows.count == 1 else { return nil }
        return rows[0]
    }

    /// What `readCandidate` knows of the candidate row at a `{` without `JSONDecoder`.
    enum CandidateVerdict: Equatable {
        /// `flatObjectEnd` finds the object's end at `close`, and `decodeRow` returns `row`.
        case row(PendingDeliveryMetric, close: Int)
        /// No row here: `flatObjectEnd` finds no end (a `{` outside a string, or the bytes end
        /// first), or the object is shorter than `minimumRowBytes`, or `decodeRow` refuses it.
        case refused
        /// Not known here: ask `flatObjectEnd` and `decodeRow`.
        case undecided
    }

    /// What `salvagedRows` would find with `flatObjectEnd` and `decodeRow` for the object at
    /// `b[open]` (a `{`), decided here, in one pass that stops at the first byte that settles it,
    /// only where it is certain; `.undecided` for the rest.
    ///
    /// Damage leaves mostly objects whose keys and values are all strings: a torn value, a bad
    /// id or date, a key lost, bytes that are not UTF-8. For those the outcome is known without
    /// `JSONDecoder`:
    /// - strings end where `flatObjectEnd` ends them (at a `"` not escaped by a `\`), so this
    ///   pass and `flatObjectEnd` meet the same `{` and `}` outside strings;
    /// - the members are read as JSON reads them (whitespace: space, tab, LF, CR); a byte where
    ///   JSON allows none (after `{`, a key, a `:`, a value or a `,`) is refused: `JSONDecoder`
    ///   scans the whole structure before it decodes any value, and a `{` there or the end of
    ///   the bytes ends `flatObjectEnd`'s search too;
    /// - a key with an escape, a value that is not a string or a trailing `,` (which
    ///   `JSONDecoder` takes): undecided;
    /// - a key with a raw control character or bytes that are not UTF-8: refused (`JSONDecoder`
    ///   decodes every key of the object);
    /// - a row key missing: refused (`keyNotFound`); a key given twice: its first value counts,
    ///   as in `JSONDecoder` (the later ones are not decoded);
    /// - a row key's value with a raw control character or bytes that are not UTF-8: refused;
    ///   with an escape other than those `JSONEncoder` writes (`escapedText`): undecided;
    /// - an id `UUID(uuidString:)` does not read, or a timestamp `fileDate` does not: refused
    ///   (the `Decodable` reading uses the same two);
    /// - otherwise the row, its strings read as `canonicalDecode` reads them. Keys other than
    ///   the five are skipped, as the synthesized `Decodable` reading skips them.
    /// CIOPendingMetricCandidateTests checks every verdict against `flatObjectEnd` and
    /// `decodeRow` over the fuzz corpus and seeded byte edits of it.
    static func readCandidate(_ b: [UInt8], open: Int) -> CandidateVerdict {
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        let end = b.count
        // JSON whitespace (space, LF, CR, tab) from `i`; one comparison for any byte above a space.
        func skipSpace(_ i: inout Int) {
            while i < end {
                let c = b[i]
                guard c <= 0x20, c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
                i += 1
            }
        }
        var values = RowValues()
        var i = open + 1
        var members = 0
        var keyRefused = false
        while true {
            skipSpace(&i)
            guard i < end else { return .refused }
            if b[i] == UInt8(ascii: "}") {
                // `{}`: no key at all. After a `,`: a trailing comma, which JSONDecoder takes.
                return members == 0 ? .refused : .undecided
            }
            guard b[i] == quote else { return .refused }
            i += 1
            let keyStart = i
            var keyASCII = true
            while i < end {
                // Plain bytes are passed whole; the first other one decides.
                i = b.endOfPlainJSONText(from: i)
                guard i < end else { break }
                let c = b[i]
                if c == quote { break }
                if c == backslash { return .undecided }
                if c < 0x20 { keyRefused = true } else { keyASCII = false }  // else: a byte >= 0x80
                i += 1
            }
            guard i < end else { return .refused }
            let key = keyStart..<i
            // Not ASCII: not a row key; refused when not UTF-8.
            if !keyASCII && String(validating: b[key], as: UTF8.self) == nil { keyRefused = true }
            i += 1
            skipSpace(&i)
            guard i < end, b[i] == UInt8(ascii: ":") else { return .refused }
            i += 1
            skipSpace(&i)
            guard i < end else { return .refused }
            let c = b[i]
            if c == quote {
                i += 1
                let valueStart = i
                let plain = scanStringValue(b, &i)
                guard i < end else { return .refused }
                if let k = rowKeyIndex(b, key) { values.setFirst(k, valueStart..<i, plain) }
                i += 1
            } else if c == UInt8(ascii: "[") || c == UInt8(ascii: "-") || c == UInt8(ascii: "t") || c == UInt8(ascii: "f")
                        || c == UInt8(ascii: "n") || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) {
                return .undecided
            } else {
                return .refused
            }
            members += 1
            skipSpace(&i)
            guard i < end else { return .refused }
            if b[i] == UInt8(ascii: ",") {
                i += 1
                continue
            }
            guard b[i] == UInt8(ascii: "}") else { return .refused }
            break
        }
        let close = i
        // Every row is at least this long, so a shorter object is no row; `salvagedRows` skips it.
        if keyRefused || close - open + 1 < minimumRowBytes { return .refused }
        return rowVerdict(b, values, close: close)
    }

    /// From `i` (just after a string value's opening quote) to its closing quote (`i` left on it,
    /// or at or past the end when there is none), what the string holds. A `\` takes the byte
    /// after it along, as `flatObjectEnd` does.
    private static func scanStringValue(_ b: [UInt8], _ i: inout Int) -> PlainText {
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        var plain = PlainText.ascii
        while i < b.count {
            // Plain bytes (printable ASCII besides `"` and `\`) are passed eight at a time: in the
            // fuzz build a loop over each byte traced every comparison.
            i = b.endOfPlainJSONText(from: i)
            guard i < b.count else { break }
            let v = b[i]
            if v == quote { break }
            if v == backslash {
                plain = .escaped
                i += 2
                continue
            }
            if v < 0x20 {
                if plain != .escaped { plain = .control }
            } else if plain == .ascii {  // a byte >= 0x80
                plain = .utf8
            }
            i += 1
        }
        return plain
    }

    /// The verdict on an object that ends at `close` with the five row keys' first `values`:
    /// the row, refused (a key missing, a raw control character or bytes that are not UTF-8 in a
    /// value, an id or timestamp that does not read), or undecided (an escape `escapedText` does
    /// not read).
    private static func rowVerdict(_ b: [UInt8], _ values: RowValues, close: Int) -> CandidateVerdict {
        var texts: [String] = []
        texts.reserveCapacity(5)
        for k in 0..<5 {
            guard let (range, plain) = values[k] else { return .refused }
            switch plain {
            case .ascii:
                texts.append(String(decoding: b[range], as: UTF8.self))
            case .utf8:
                guard let text = String(validating: b[range], as: UTF8.self) else { return .refused }
                texts.append(text)
            case .control:
                return .refused
            case .escaped:
                var j = range.lowerBound
                guard let text = escapedText(b, &j), j == range.upperBound + 1 else { return .undecided }
                texts.append(text)
            }
        }
        guard let id = UUID(fastUUIDString: texts[3]), let timestamp = fileDate(texts[4]) else { return .refused }
        return .row(PendingDeliveryMetric(id: id, deliveryID: texts[0], deviceID: texts[1], event: texts[2], timestamp: timestamp), close: close)
    }

    /// What a string value holds, as far as `readCandidate` needs to know: only ASCII, UTF-8
    /// (to validate), a raw control character, or an escape (read by `escapedText`).
    enum PlainText {
        case ascii, utf8, control, escaped
    }

    /// The first value of each of the five row keys (in sorted order) in an object.
    struct RowValues {
        private var a, b, c, d, e: (Range<Int>, PlainText)?

        subscript(_ k: Int) -> (Range<Int>, PlainText)? {
            switch k {
            case 0: a
            case 1: b
            case 2: c
            case 3: d
            default: e
            }
        }

        /// Keeps the first value of key `k`: `JSONDecoder` reads a key given twice so.
        mutating func setFirst(_ k: Int, _ range: Range<Int>, _ plain: PlainText) {
            switch k {
            case 0: if a == nil { a = (range, plain) }
            case 1: if b == nil { b = (range, plain) }
            case 2: if c == nil { c = (range, plain) }
            case 3: if d == nil { d = (range, plain) }
            default: if e == nil { e = (range, plain) }
            }
        }
    }

    /// Index of the key `b[key]` in the row's keys in sorted order (`delivery_id`, `device_id`,
    /// `event`, `id`, `timestamp`), nil for any other key.
    static func rowKeyIndex(_ b: [UInt8], _ key: Range<Int>) -> Int? {
        let at = key.lowerBound
        switch key.count {
        case 11: return b.hasBytes("delivery_id", at: at) ? 0 : nil
        case 9: return b.hasBytes("device_id", at: at) ? 1 : b.hasBytes("timestamp", at: at) ? 4 : nil
        case 5: return b.hasBytes("event", at: at) ? 2 : nil
        case 2: return b.hasBytes("id", at: at) ? 3 : nil
        default: return nil
        }
    }
}
