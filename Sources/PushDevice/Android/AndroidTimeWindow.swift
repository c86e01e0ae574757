import Foundation

/// A span of emulated time in milliseconds since the push arrived, written `A-B` on the
/// command line.
public struct AndroidTimeWindow: Sendable, Codable, Equatable {
    public var startMs: Int64
    public var endMs: Int64
    public init(startMs: Int64, endMs: Int64) {
        self.startMs = startMs
        self.endMs = endMs
    }
    public func contains(_ t: Int64) -> Bool { t >= startMs && t < endMs }

    /// `A-B` in milliseconds (`0-60000`), or with units (`0-60s`, `1m-2h`).
    public static func parse(_ text: String) -> AndroidTimeWindow? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let a = parseMs(String(parts[0])), let b = parseMs(String(parts[1])), a < b else { return nil }
        return AndroidTimeWindow(startMs: a, endMs: b)
    }

    /// `1500`, `1500ms`, `2s`, `5m`, `3h`, `2d`.
    public static func parseMs(_ text: String) -> Int64? {
        let units: [(String, Int64)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000), ("d", 86_400_000)]
        for (suffix, factor) in units where text.hasSuffix(suffix) {
            guard let v = Double(text.dropLast(suffix.count)), v >= 0 else { return nil }
            return Int64(v * Double(factor))
        }
        guard let v = Int64(text), v >= 0 else { return nil }
        return v
    }
}
