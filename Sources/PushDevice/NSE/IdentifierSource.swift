import Foundation

/// Where the extension's random identifiers come from (file-name UUIDs, attachment ids, row
/// ids), so a seeded simulator run reproduces them.
public protocol IdentifierSource: Sendable {
    func uuid() -> UUID
    /// `count` random lowercase ASCII letters.
    func lowercaseLetters(_ count: Int) -> String
}

public struct SystemIdentifierSource: IdentifierSource {
    public init() {}
    public func uuid() -> UUID { UUID() }
    public func lowercaseLetters(_ count: Int) -> String {
        String((0..<count).map { _ in Character(UnicodeScalar(UInt8.random(in: 97...122))) })
    }
}
