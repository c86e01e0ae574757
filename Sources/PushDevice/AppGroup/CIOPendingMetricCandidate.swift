import Foundation
import PushCore

/// Reading one candidate row of a damaged pending-metrics file without `JSONDecoder`
/// (`readCandidate`): what `salvagedRows` would find with `flatObjectEnd` and `decodeRow`,
/// decided where it is certain.
extension CIOPendingMetricFile {
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
    /// id or date, a key lost, bytes that are not UTF-8. The outcome is known without
    /// `JSONDecoder` (docs/hardening.md, "Issue 41, session 20", says what its scan checks):
    /// - strings end where `flatObjectEnd` ends them (at a `"` not escaped by a `\`), so this
    ///   pass and `flatObjectEnd` meet the same `{` and `}` outside strings; `JSONDecoder`'s scan
    ///   ends them there too, except after a `\u`, whose next four bytes it takes whole: a `"`
    ///   among them (or the bytes ending first) is refused (its scan throws), a `\` among them
    ///   undecided (it would end the string elsewhere) unless `JSONDecoder` decodes that string
    ///   (a key, a row key's first value: refused, the four bytes are no hex digits);
    /// - the members are read as JSON reads them (whitespace: space, tab, LF, CR); a byte where
    ///   JSON allows none (after `{`, a key, a `:`, a value or a `,`) is refused: `JSONDecoder`
    ///   scans the whole structure before it decodes any value, and a `{` there or the end of
    ///   the bytes ends `flatObjectEnd`'s search too; a `,` before the `}` is taken, as
    ///   `JSONDecoder` takes it;
    /// - a key with a raw control character or bytes that are not UTF-8: refused (`JSONDecoder`
    ///   decodes every key of the object); a key with an escape is decoded
    ///   (`JSONEscape.decodedText`), refused where that refuses, and then read as any key;
    /// - a row key missing: refused (`keyNotFound`); a key given twice: its first value counts,
    ///   as in `JSONDecoder` (the later ones are scanned, not decoded);
    /// - a row key's first value that is not a string: refused (`JSONDecoder` decodes all five
    ///   as strings: `typeMismatch`, `valueNotFound`);
    /// - another value that is not a string (another key's, or a row key's given again): read
    ///   as `JSONDecoder`'s scan passes it (`skipOtherValue`), refused where it throws; arrays
    ///   nested deeper than `maximumArrayDepth`: undecided;
    /// - a row key's first value with a raw control character, bytes that are not UTF-8 or an
    ///   escape JSON does not have: refused; its escapes are decoded (`escapedText` for those
    ///   `JSONEncoder` writes, `JSONEscape.decodedText` for any other);
    /// - an id `UUID(uuidString:)` does not read, or a timestamp `fileDate` does not: refused
    ///   (the `Decodable` reading uses the same two);
    /// - otherwise the row. Keys other than the five are skipped, as the synthesized
    ///   `Decodable` reading skips them.
    /// CIOPendingMetricCandidateTests checks every verdict against `flatObjectEnd` and
    /// `decodeRow` over the fuzz corpus, seeded byte edits of it and drawn objects.
    static func readCandidate(_ b: [UInt8], open: Int) -> CandidateVerdict {
        let quote = UInt8(ascii: "\"")
        let end = b.count
        var values = RowValues()
        var i = open + 1
        var members = 0
        var keyRefused = false
        while true {
            skipJSONSpace(b, &i)
            guard i < end else { return .refused }
            if b[i] == UInt8(ascii: "}") {
                // `{}`: no key at all. After a `,`: a trailing comma, which JSONDecoder takes.
                if members == 0 { return .refused }
                break
            }
            guard b[i] == quote else { return .refused }
            var rowKey: Int?
            if let verdict = scanKey(b, &i, rowKey: &rowKey, keyRefused: &keyRefused) { return verdict }
            i += 1
            skipJSONSpace(b, &i)
            guard i < end, b[i] == UInt8(ascii: ":") else { return .refused }
            i += 1
            skipJSONSpace(b, &i)
            guard i < end else { return .refused }
            if b[i] == quote {
                i += 1
                let valueStart = i
                var plain = PlainText.ascii
                let decoded = rowKey.map { values[$0] == nil } ?? false
                if let verdict = scanString(b, &i, &plain, decoded: decoded) { return verdict }
                guard i < end else { return .refused }
                if let k = rowKey { values.setFirst(k, valueStart..<i, plain) }
                i += 1
            } else {
                // A row key's first value is decoded as a string: any other value is refused.
                if let k = rowKey, values[k] == nil { return .refused }
                if let verdict = skipOtherValue(b, &i) { return verdict }
            }
            members += 1
            skipJSONSpace(b, &i)
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

    /// The key whose opening quote is `b[i]`, to its closing quote (`i` left on it): which row
    /// key it is in `rowKey` (nil for any other), or the verdict it settles. `keyRefused` is set
    /// for a key `JSONDecoder` cannot decode that is still read on (a raw control character,
    /// bytes that are not UTF-8), since a later byte may refuse the object first.
    private static func scanKey(_ b: [UInt8], _ i: inout Int, rowKey: inout Int?, keyRefused: inout Bool) -> CandidateVerdict? {
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        let end = b.count
        i += 1
        let keyStart = i
        var keyASCII = true, keyHasEscape = false
        while i < end {
            // Plain bytes are passed whole; the first other one decides.
            i = b.endOfPlainJSONText(from: i)
            guard i < end else { break }
            let c = b[i]
            if c == quote { break }
            if c == backslash {
                if let verdict = unicodeEscapeVerdict(b, at: i, decoded: true) { return verdict }
                keyHasEscape = true
                i += 2
                continue
            }
            if c < 0x20 { keyRefused = true } else { keyASCII = false }  // else: a byte >= 0x80
            i += 1
        }
        guard i < end else { return .refused }
        let key = keyStart..<i
        // Not ASCII: not a row key; refused when not UTF-8.
        if !keyASCII && String(validating: b[key], as: UTF8.self) == nil { keyRefused = true }
        if keyHasEscape {
            // Decoded as `JSONDecoder` decodes keys (it decodes every key of the object, so one it
            // cannot read refuses the row), then compared as it compares them.
            guard let text = JSONEscape.decodedText(b, quoteAt: keyStart - 1) else { return .refused }
            let bytes = Array(text.utf8)
            rowKey = rowKeyIndex(bytes, bytes.indices)
        } else {
            rowKey = rowKeyIndex(b, key)
        }
        return nil
    }

    /// JSON whitespace (space, LF, CR, tab) from `i`; one comparison for any byte above a space.
    private static func skipJSONSpace(_ b: [UInt8], _ i: inout Int) {
        while i < b.count {
            let c = b[i]
            guard c <= 0x20, c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
            i += 1
        }
    }

    /// At a `\` in a string (`b[i]`): `JSONDecoder`'s scan takes the four bytes after a `\u`
    /// whole, and throws when one of them is a `"` or the bytes end first (refused); when one of
    /// them is a `\`, it ends the string elsewhere than `flatObjectEnd`: undecided, unless the
    /// string is one `JSONDecoder` decodes (`decoded`: a key, a row key's first value), where
    /// those four bytes are no hex digits and it throws (refused). Everything before this `\`
    /// was read as its scan reads it (the first such `\u` returns), so it meets this string too.
    /// Nil for any other escape: both pass it alike (a `\` takes the byte after it along).
    static func unicodeEscapeVerdict(_ b: [UInt8], at i: Int, decoded: Bool) -> CandidateVerdict? {
        guard i + 1 < b.count, b[i + 1] == UInt8(ascii: "u") else { return nil }
        let four = (i + 2)..<min(i + 6, b.count)
        if b[four].contains(UInt8(ascii: "\"")) || four.count < 4 { return .refused }
        guard b[four].contains(UInt8(ascii: "\\")) else { return nil }
        return decoded ? .refused : .undecided
    }

    /// From `i` (just after a string's opening quote) to its closing quote (`i` left on it, or at
    /// or past the end when there is none), what the string holds in `plain`; a verdict when a
    /// `\u` settles the candidate (`unicodeEscapeVerdict`; `decoded`: `JSONDecoder` decodes this
    /// string). A `\` takes the byte after it along, as `flatObjectEnd` does.
    private static func scanString(_ b: [UInt8], _ i: inout Int, _ plain: inout PlainText, decoded: Bool = false) -> CandidateVerdict? {
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        while i < b.count {
            // Plain bytes (printable ASCII besides `"` and `\`) are passed eight at a time: in the
            // fuzz build a loop over each byte traced every comparison.
            i = b.endOfPlainJSONText(from: i)
            guard i < b.count else { break }
            let v = b[i]
            if v == quote { break }
            if v == backslash {
                if let verdict = unicodeEscapeVerdict(b, at: i, decoded: decoded) { return verdict }
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
        return nil
    }

    /// Arrays nested deeper than this in a value are left undecided (`JSONDecoder`'s scan
    /// allows 512 levels in all).
    static let maximumArrayDepth = 32

    /// Past the value at `b[i]` that is not a string (`true`, `false`, `null`, a number, an
    /// array), as `JSONDecoder`'s scan passes it (it decodes no value of a key the row does not
    /// have, nor a key's value after its first): nil with `i` just after it, or the verdict it
    /// settles. The scan takes exactly `true`, `false` and `null`; a number as a `-` or a digit
    /// and every digit, `.`, `+`, `-`, `e` and `E` after it (it checks a number only when it
    /// decodes one); arrays of values, `,` between them and one before the `]` (as in objects);
    /// strings as `scanString` reads them. A `{` in a value is refused: `flatObjectEnd` finds no
    /// end (rows are flat).
    private static func skipOtherValue(_ b: [UInt8], _ i: inout Int) -> CandidateVerdict? {
        let end = b.count
        var arrays = 0  // arrays open around `i`
        while true {
            guard i < end else { return .refused }
            switch b[i] {
            case UInt8(ascii: "["):
                arrays += 1
                guard arrays <= maximumArrayDepth else { return .undecided }
                i += 1
                skipJSONSpace(b, &i)
                guard i < end else { return .refused }
                guard b[i] == UInt8(ascii: "]") else { continue }  // its first value
                i += 1
                arrays -= 1
            case UInt8(ascii: "\""):
                i += 1
                var plain = PlainText.ascii
                if let verdict = scanString(b, &i, &plain) { return verdict }
                guard i < end else { return .refused }
                i += 1
            case UInt8(ascii: "t"):
                guard b.hasBytes("true", at: i) else { return .refused }
                i += 4
            case UInt8(ascii: "f"):
                guard b.hasBytes("false", at: i) else { return .refused }
                i += 5
            case UInt8(ascii: "n"):
                guard b.hasBytes("null", at: i) else { return .refused }
                i += 4
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                i += 1
                while i < end, isNumberByte(b[i]) { i += 1 }
            default:
                return .refused
            }
            // After a value inside arrays: a `,` and the next value, or a `]` (after a `,` too)
            // closing the innermost array.
            while arrays > 0 {
                skipJSONSpace(b, &i)
                guard i < end else { return .refused }
                if b[i] == UInt8(ascii: ",") {
                    i += 1
                    skipJSONSpace(b, &i)
                    guard i < end else { return .refused }
                    if b[i] != UInt8(ascii: "]") { break }
                } else if b[i] != UInt8(ascii: "]") {
                    return .refused
                }
                i += 1
                arrays -= 1
            }
            if arrays == 0 { return nil }
        }
    }

    /// A byte `JSONDecoder`'s scan passes inside a number: a digit, `.`, `+`, `-`, `e`, `E`.
    private static func isNumberByte(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "e"), UInt8(ascii: "E"):
            return true
        default:
            return false
        }
    }

    /// The verdict on an object that ends at `close` with the five row keys' first `values`:
    /// the row, or refused (a key missing, a raw control character, bytes that are not UTF-8 or
    /// an escape JSON does not have in a value, an id or timestamp that does not read).
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
                if let text = escapedText(b, &j), j == range.upperBound + 1 {
                    texts.append(text)
                } else {
                    // Escapes JSONEncoder does not write (or a control, bytes that are not
                    // UTF-8): read as JSON reads them, refused where JSONDecoder throws.
                    guard let text = JSONEscape.decodedText(b, quoteAt: range.lowerBound - 1) else { return .refused }
                    texts.append(text)
                }
            }
        }
        guard let id = UUID(fastUUIDString: texts[3]), let timestamp = fileDate(texts[4]) else { return .refused }
        return .row(PendingDeliveryMetric(id: id, deliveryID: texts[0], deviceID: texts[1], event: texts[2], timestamp: timestamp), close: close)
    }

    /// What a string value holds, as far as `readCandidate` needs to know: only ASCII, UTF-8
    /// (to validate), a raw control character, or an escape (read by `escapedText`, else by
    /// `JSONEscape.decodedText`).
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
