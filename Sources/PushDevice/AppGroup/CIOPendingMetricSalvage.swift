import Foundation

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
        if let rows = decode(bytes) { return rows }
        var rows: [PendingDeliveryMetric] = []
        var start = 0
        while let open = bytes[start...].firstIndex(of: UInt8(ascii: "{")) {
            // Shorter than any row (five keys, a 36-character UUID): not worth a decode.
            guard let close = flatObjectEnd(bytes, from: open), close - open + 1 >= minimumRowBytes else {
                start = open + 1
                continue
            }
            if let row = decodeRow(Array(bytes[open...close])) {
                rows.append(row)
                start = close + 1
            } else {
                start = open + 1
            }
        }
        return rows
    }

    /// `{"delivery_id":"","device_id":"","event":"","id":"","timestamp":""}` plus a UUID: every
    /// row has all five keys (none is optional), so no object shorter than this decodes as one.
    static let minimumRowBytes = 67 + 36

    /// The index of the `}` closing the object that opens at `open`, or nil when the bytes end
    /// first or another `{` opens outside a string (rows are flat).
    static func flatObjectEnd(_ bytes: [UInt8], from open: Int) -> Int? {
        var inString = false
        var escaped = false
        var i = open + 1
        while i < bytes.count {
            let b = bytes[i]
            if inString {
                if escaped { escaped = false } else if b == UInt8(ascii: "\\") { escaped = true } else if b == UInt8(ascii: "\"") { inString = false }
            } else if b == UInt8(ascii: "\"") {
                inString = true
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
