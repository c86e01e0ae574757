import Foundation

/// The decoded `name=value` pairs of a query string.
struct QueryItems {
    private var items: [String: String] = [:]

    init(_ query: String?) {
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (s: Substring) in String(s).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(s) }
            items[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
    }

    subscript(name: String) -> String? { items[name] }

    func int(_ name: String, range: ClosedRange<Int>) throws(ConsoleInputError) -> Int? {
        try int64(name, range: Int64(range.lowerBound)...Int64(range.upperBound)).map { Int($0) }
    }

    func int64(_ name: String, range: ClosedRange<Int64>) throws(ConsoleInputError) -> Int64? {
        guard let raw = items[name], !raw.isEmpty else { return nil }
        guard let v = Int64(raw), range.contains(v) else {
            throw ConsoleInputError(field: name, error: "\(name)=\(raw) is not a whole number in \(range.lowerBound)…\(range.upperBound)",
                                    fix: "pass \(name) as a whole number in that range, or leave it out")
        }
        return v
    }
}
