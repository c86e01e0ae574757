import Foundation

/// A value bound to or read from a statement.
public enum SQLiteValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

extension SQLiteValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByNilLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(nilLiteral: ()) { self = .null }
    public static func text(_ v: String?) -> SQLiteValue { v.map { .text($0) } ?? .null }
    public static func int(_ v: Int?) -> SQLiteValue { v.map { .integer(Int64($0)) } ?? .null }
    public static func double(_ v: Double?) -> SQLiteValue { v.map { .real($0) } ?? .null }
}
