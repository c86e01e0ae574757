import Foundation

/// A JSON Pointer (RFC 6901): `/aps/alert/title`, `/message/data/gcm~1x` (`~1` is `/`, `~0` is `~`).
/// The empty pointer `""` is the whole document.
public struct JSONPointer: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral, Comparable {
    /// Unescaped reference tokens.
    public let tokens: [String]

    public init(tokens: [String]) { self.tokens = tokens }

    /// Parses a pointer string; nil when it is not empty and does not start with `/`, or has a
    /// bad `~` escape.
    public init?(parsing text: String) {
        if text.isEmpty { tokens = []; return }
        guard text.hasPrefix("/") else { return nil }
        var out: [String] = []
        for raw in text.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            var token = ""
            var iterator = raw.makeIterator()
            while let c = iterator.next() {
                if c == "~" {
                    switch iterator.next() {
                    case "0": token.append("~")
                    case "1": token.append("/")
                    default: return nil
                    }
                } else {
                    token.append(c)
                }
            }
            out.append(token)
        }
        tokens = out
    }

    /// Literal pointers in code must be valid; an invalid one is a programming error.
    public init(stringLiteral value: String) {
        guard let p = JSONPointer(parsing: value) else { preconditionFailure("invalid JSON pointer literal \(value)") }
        self = p
    }

    public static let root = JSONPointer(tokens: [])

    public func appending(_ token: String) -> JSONPointer {
        var t = tokens
        t.append(token)
        return JSONPointer(tokens: t)
    }
    public func appending(_ index: Int) -> JSONPointer { appending(String(index)) }
    public static func / (lhs: JSONPointer, rhs: String) -> JSONPointer { lhs.appending(rhs) }
    public static func / (lhs: JSONPointer, rhs: Int) -> JSONPointer { lhs.appending(rhs) }

    public var parent: JSONPointer? { tokens.isEmpty ? nil : JSONPointer(tokens: Array(tokens.dropLast())) }
    public var lastToken: String? { tokens.last }

    /// The escaped string form: `""` for the root, else `/a/b~1c`.
    public var description: String {
        var out = ""
        for t in tokens {
            out.append("/")
            if t.contains(where: { $0 == "~" || $0 == "/" }) {
                out.append(t.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1"))
            } else {
                out.append(t)
            }
        }
        return out
    }

    /// For display: the root pointer is shown as `/` is ambiguous, so the CLI prints `(root)`.
    public var displayString: String { tokens.isEmpty ? "(root)" : description }

    public static func < (a: JSONPointer, b: JSONPointer) -> Bool { a.tokens.lexicographicallyPrecedes(b.tokens) }

    /// RFC 6901 array index: `0` or a decimal without leading zeros.
    static func arrayIndex(_ token: String) -> Int? {
        guard !token.isEmpty, token.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        if token.utf8.count > 1 && token.utf8.first == 0x30 { return nil }
        return Int(token)
    }
}
