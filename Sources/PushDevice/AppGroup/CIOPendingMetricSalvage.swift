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
}
