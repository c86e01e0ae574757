import Foundation

/// A number exactly as written. Its value is derived on demand; the text is what is sent.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The literal, e.g. `1`, `1.0`, `-0`, `1e3`, `123456789012345678901234567890`.
    public let text: String

    /// `text` must be a valid JSON number literal (the parser and `init(_: Int)` guarantee it).
    public init(literal text: String) { self.text = text }
    public init(_ value: Int) { self.text = String(value) }
    /// A finite double rendered in its shortest round-tripping form.
    public init(_ value: Double) {
        if value == value.rounded(), abs(value) < 1e15 { self.text = String(Int(value)) } else { self.text = "\(value)" }
    }

    /// True when the literal has no fraction and no exponent (`1`, not `1.0` or `1e0`).
    /// (A literal is ASCII: its UTF-8 bytes are its characters.)
    public var isIntegerLiteral: Bool {
        !text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") })
    }
    /// The value as an Int when the literal is an integer that fits; nil otherwise.
    public var intValue: Int? { isIntegerLiteral ? Int(text) : nil }
    /// The value as a Double (may be ±infinity for huge literals).
    public var doubleValue: Double { Double(text) ?? .nan }
    /// True when the value is mathematically an integer, whatever the literal (`1.0`, `1e0`).
    public var hasIntegralValue: Bool {
        if isIntegerLiteral { return true }
        let d = doubleValue
        return d.isFinite && d == d.rounded()
    }
    public var description: String { text }
}
