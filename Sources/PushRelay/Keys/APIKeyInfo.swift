import Foundation

/// A key as `keys list` shows it: never the key itself, only its id (the key's first 12
/// characters, e.g. `plk_3fK9aQ2x`) and metadata.
public struct APIKeyInfo: Sendable, Hashable {
    public var id: String
    public var scope: APIKeyScope
    public var label: String?
    public var createdAt: Date
    public var revokedAt: Date?
}
