import Foundation

/// Compares what a command printed with the output shown under it in the docs.
///
/// The rules (docs/README.md): whitespace runs count as one space; values that change from run
/// to run are compared by kind (UUIDs, timestamps, clock times, durations, rates, loopback
/// ports); `…` inside a line stands for any text; a line holding only `…` stands for any
/// number of lines. Everything else must match line by line, first to last.
enum ExampleOutputMatcher {
    private static let volatile: [(NSRegularExpression, String)] = [
        (#"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"#, "<uuid>"),
        (#"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?"#, "<time>"),
        (#"\b\d{2}:\d{2}:\d{2}(\.\d+)?\b"#, "<time>"),
        (#"(127\.0\.0\.1|localhost|\[::1\]):\d+"#, "$1:<port>"),
        (#"\d[\d,]*(\.\d+)?/s\b"#, "<rate>"),
        (#"\d[\d,]*(\.\d+)? ?(ms|µs|us|s)\b"#, "<duration>"),
    ].map { (try! NSRegularExpression(pattern: $0.0), $0.1) }

    static func normalize(_ line: String) -> String {
        var text = line
        for (pattern, template) in volatile {
            text = pattern.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: template)
        }
        return text.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    }

    /// nil when `actual` matches `expected`; else a description of the first difference.
    static func mismatch(expected: [String], actual: [String]) -> String? {
        let want = expected.map(normalize)
        let got = actual.map(normalize)
        if matches(want[...], got[...]) { return nil }
        // Report the first expected line that has no counterpart, for a readable failure.
        var position = 0
        for line in want where line != "…" {
            guard let found = got[position...].firstIndex(where: { lineMatches(line, $0) }) else {
                return "expected line not printed: \(line)"
            }
            position = found + 1
        }
        return "the lines printed differ in order or number from those shown (lines shown must match first to last; use a line of … for lines left out)"
    }

    private static func matches(_ want: ArraySlice<String>, _ got: ArraySlice<String>) -> Bool {
        guard let first = want.first else { return got.isEmpty }
        if first == "…" {
            let rest = want.dropFirst()
            var start = got.startIndex
            while true {
                if matches(rest, got[start...]) { return true }
                if start == got.endIndex { return false }
                start += 1
            }
        }
        guard let line = got.first, lineMatches(first, line) else { return false }
        return matches(want.dropFirst(), got.dropFirst())
    }

    /// `…` inside an expected line matches any text (also none).
    static func lineMatches(_ pattern: String, _ line: String) -> Bool {
        let parts = pattern.components(separatedBy: "…").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count > 1 else { return pattern == line }
        var rest = Substring(line)
        for (index, part) in parts.enumerated() {
            if part.isEmpty { continue }
            if index == 0 {
                guard rest.hasPrefix(part) else { return false }
                rest = rest.dropFirst(part.count)
            } else if index == parts.count - 1 {
                return rest.hasSuffix(part)
            } else {
                guard let range = rest.range(of: part) else { return false }
                rest = rest[range.upperBound...]
            }
        }
        return true
    }
}
