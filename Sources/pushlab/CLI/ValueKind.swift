import Foundation
import PushCore

/// How one value is written on the command line: its parse rule (the error names the flag and
/// says how to fix it), how a value is printed in help, and an example.
struct ValueKind<T: Sendable>: Sendable {
    let parse: @Sendable (_ raw: String, _ flag: String) throws -> T
    let text: @Sendable (T) -> String
    let example: String

    static var string: ValueKind<String> { ValueKind<String>(parse: { raw, _ in raw }, text: { $0 }, example: "x") }

    static func int(_ range: ClosedRange<Int>? = nil) -> ValueKind<Int> {
        number(range, what: "a whole number", sample: "10", read: { Int($0) }, text: { String($0) })
    }

    static func double(_ range: ClosedRange<Double>? = nil) -> ValueKind<Double> {
        number(range, what: "a number", sample: "1.5", read: { Double($0).flatMap { $0.isFinite ? $0 : nil } },
               text: { v in v.rounded() == v && abs(v) < 1e15 ? String(Int(v)) : String(v) })
    }

    /// A number within `range`: the errors say which kind of number and the range.
    private static func number<N: Comparable & Sendable>(_ range: ClosedRange<N>?, what: String, sample: String,
                                                         read: @escaping @Sendable (String) -> N?,
                                                         text: @escaping @Sendable (N) -> String) -> ValueKind<N> {
        ValueKind<N>(parse: { raw, flag in
            guard let v = read(raw) else {
                throw UsageError("\(flag) takes \(what), got '\(raw)'",
                                 fix: range.map { "pass \(what) from \($0.lowerBound) to \($0.upperBound)" } ?? "e.g. \(flag) \(sample)")
            }
            if let range, !range.contains(v) {
                throw UsageError("\(flag) must be between \(range.lowerBound) and \(range.upperBound), got \(v)",
                                 fix: "pass a value from \(range.lowerBound) to \(range.upperBound)")
            }
            return v
        }, text: text, example: range.map { text($0.lowerBound) } ?? sample)
    }

    /// A whole number ≥ 0 up to 2⁶⁴−1 (seeds).
    static var uint64: ValueKind<UInt64> {
        ValueKind<UInt64>(parse: { raw, flag in
            guard let v = UInt64(raw) else { throw UsageError("\(flag) '\(raw)': expected a whole number ≥ 0", fix: "e.g. \(flag) 7") }
            return v
        }, text: { String($0) }, example: "7")
    }

    /// A duration like `30s`, `250ms`, `2m` or a bare number of seconds.
    static var duration: ValueKind<Duration> {
        ValueKind<Duration>(parse: { raw, flag in
            guard let d = parseFaultDuration(raw) else {
                throw UsageError("\(flag) takes a duration like 30s, 250ms or 2m, got '\(raw)'", fix: "e.g. \(flag) 30s")
            }
            return d
        }, text: durationText, example: "1s")
    }

    /// One of an enumeration's raw values; the error lists them.
    static func choice<E: RawRepresentable & CaseIterable & Sendable>(_: E.Type) -> ValueKind<E> where E.RawValue == String {
        let names = E.allCases.map(\.rawValue)
        return ValueKind<E>(parse: { raw, flag in
            guard let v = E(rawValue: raw) else {
                throw UsageError("\(flag) '\(raw)': expected \(alternatives(names))", fix: "pass one of \(names.joined(separator: ", "))")
            }
            return v
        }, text: { $0.rawValue }, example: names[0])
    }

    /// One of a fixed list of words.
    static func choice(_ words: [String]) -> ValueKind<String> {
        ValueKind<String>(parse: { raw, flag in
            guard words.contains(raw) else {
                throw UsageError("\(flag) '\(raw)': expected \(alternatives(words))", fix: "pass one of \(words.joined(separator: ", "))")
            }
            return raw
        }, text: { $0 }, example: words[0])
    }
}

extension ValueKind where T == Int? {
    /// A port, 0 for a free one, or `off` (nil: no listener).
    static var portOrOff: ValueKind<Int?> {
        let port = ValueKind<Int>.int(0...65535)
        return ValueKind<Int?>(parse: { raw, flag in raw == "off" ? nil : try port.parse(raw, flag) },
                               text: { $0.map(String.init) ?? "off" }, example: "off")
    }
}

/// `a or b`, `a, b or c`.
private func alternatives(_ words: [String]) -> String {
    words.count < 2 ? words.joined() : words.dropLast().joined(separator: ", ") + " or " + words[words.count - 1]
}

/// A duration as help prints it: whole hours or minutes as `168h`, `2m`, else `30s`, `250ms`.
func durationText(_ d: Duration) -> String {
    let (seconds, atto) = d.components
    if atto == 0, seconds > 0, seconds % 3600 == 0 { return "\(seconds / 3600)h" }
    if atto == 0, seconds >= 60, seconds % 60 == 0 { return "\(seconds / 60)m" }
    return d.compactText
}
