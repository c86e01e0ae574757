import Foundation

/// A deliberately small URL reader for validation: the scheme, host and path as written,
/// without Foundation's platform-dependent repairs (percent-encoding spaces on some versions).
struct URLShape {
    let scheme: String
    let host: String?
    let path: String

    /// nil when the text is not an absolute URL: no scheme, or whitespace/control characters.
    init?(_ text: String) {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let scheme = text[..<colon]
        // RFC 3986: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
        let bytes = Array(scheme.utf8)
        func isAlpha(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }
        guard let first = bytes.first, isAlpha(first),
              bytes.allSatisfy({ isAlpha($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E }) else { return nil }
        if text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F || "<>\"{}|\\^`".unicodeScalars.contains($0) }) { return nil }
        self.scheme = String(scheme)
        var rest = text[text.index(after: colon)...]
        if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
            let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
            var authority = rest[..<end]
            if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
            if let portColon = authority.lastIndex(of: ":"), !authority.hasPrefix("[") { authority = authority[..<portColon] }
            host = String(authority)
            rest = rest[end...]
        } else {
            host = nil
        }
        let pathEnd = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) ?? rest.endIndex
        path = String(rest[..<pathEnd])
    }

    var lowercasedScheme: String { scheme.lowercased() }
    var isWeb: Bool { lowercasedScheme == "http" || lowercasedScheme == "https" }

    /// The path's extension, lowercased (`/a/b.JPG` → `jpg`), or "".
    var pathExtension: String {
        let last = path.split(separator: "/").last ?? ""
        guard let dot = last.lastIndex(of: "."), dot != last.startIndex else { return "" }
        return last[last.index(after: dot)...].lowercased()
    }
}

/// A close known name for a misspelt key (`mutable_content` → `mutable-content`).
func closestName(to key: String, in names: [String]) -> String? {
    func norm(_ s: String) -> String { s.lowercased().filter { $0 != "-" && $0 != "_" } }
    let k = norm(key)
    if let same = names.first(where: { norm($0) == k }) { return same }
    var best: (String, Int)?
    for n in names {
        let d = editDistance(k, norm(n))
        if d <= 2, d < (best?.1 ?? Int.max) { best = (n, d) }
    }
    return best?.0
}

func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a.utf8), b = Array(b.utf8)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var row = Array(0...b.count)
    for i in 1...a.count {
        var prev = row[0]
        row[0] = i
        for j in 1...b.count {
            let cur = row[j]
            row[j] = min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] == b[j - 1] ? 0 : 1))
            prev = cur
        }
    }
    return row[b.count]
}
