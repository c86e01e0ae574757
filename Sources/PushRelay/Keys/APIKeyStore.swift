import Foundation
import PushAuth
import PushStore

/// What an API key may do: one app's routes, or everything (admin).
public enum APIKeyScope: Sendable, Hashable, CustomStringConvertible {
    case app(String)
    case admin

    public var description: String {
        switch self {
        case .app(let name): return "app:\(name)"
        case .admin: return "admin"
        }
    }

    init?(stored: String) {
        if stored == "admin" { self = .admin } else if stored.hasPrefix("app:") { self = .app(String(stored.dropFirst(4))) } else { return nil }
    }

    public func allows(app name: String) -> Bool {
        switch self {
        case .admin: return true
        case .app(let own): return own == name
        }
    }
}

/// A key as `keys list` shows it: never the key itself, only its id (the key's first 12
/// characters, e.g. `plk_3fK9aQ2x`) and metadata.
public struct APIKeyInfo: Sendable, Hashable {
    public var id: String
    public var scope: APIKeyScope
    public var label: String?
    public var createdAt: Date
    public var revokedAt: Date?
}

/// The relay's API keys in `DATA/keys.sqlite`, stored as SHA-256 hashes: a stolen file does
/// not give working keys, and a key is shown exactly once, when created.
public final class APIKeyStore: Sendable {
    /// Keys look like `plk_` + 40 base-62 characters (238 bits of randomness).
    public static let prefix = "plk_"
    private let database: SQLiteDatabase

    public init(path: String) throws {
        database = try SQLiteDatabase(path: path)
        try database.execute("""
            CREATE TABLE IF NOT EXISTS api_keys (
                id TEXT PRIMARY KEY,
                hash TEXT NOT NULL UNIQUE,
                scope TEXT NOT NULL,
                label TEXT,
                created_at REAL NOT NULL,
                revoked_at REAL
            );
            """)
    }

    /// Makes a key for `scope`; returns it (the only time it is visible) with its info.
    public func create(scope: APIKeyScope, label: String?, now: Date = Date()) throws -> (key: String, info: APIKeyInfo) {
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        var generator = SystemRandomNumberGenerator()
        let key = Self.prefix + String((0..<40).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
        let info = APIKeyInfo(id: String(key.prefix(12)), scope: scope, label: label, createdAt: now, revokedAt: nil)
        try database.run("INSERT INTO api_keys (id, hash, scope, label, created_at) VALUES (?, ?, ?, ?, ?)",
                         [.text(info.id), .text(Self.hash(key)), .text(scope.description), .text(label), .real(now.timeIntervalSince1970)])
        return (key, info)
    }

    public func list() throws -> [APIKeyInfo] {
        try database.query("SELECT id, scope, label, created_at, revoked_at FROM api_keys ORDER BY created_at").compactMap { row in
            guard let scope = APIKeyScope(stored: row.string(1) ?? "") else { return nil }
            return APIKeyInfo(id: row.string(0) ?? "", scope: scope, label: row.string(2),
                              createdAt: Date(timeIntervalSince1970: row.double(3) ?? 0),
                              revokedAt: row.double(4).map { Date(timeIntervalSince1970: $0) })
        }
    }

    /// Revokes the key with this id; false when no live key has it.
    public func revoke(id: String, now: Date = Date()) throws -> Bool {
        try database.run("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", [.real(now.timeIntervalSince1970), .text(id)]) == 1
    }

    /// The scope of a presented key, or nil when it is unknown or revoked. Looked up by hash
    /// on every request, so `keys revoke` takes effect at once in a running relay.
    public func scope(ofKey key: String) -> APIKeyScope? {
        guard key.hasPrefix(Self.prefix), key.utf8.count == Self.prefix.utf8.count + 40 else { return nil }
        guard let row = try? database.query("SELECT scope FROM api_keys WHERE hash = ? AND revoked_at IS NULL", [.text(Self.hash(key))]).first else {
            return nil
        }
        return APIKeyScope(stored: row.string(0) ?? "")
    }

    static func hash(_ key: String) -> String { Digest.hex(Digest.sha256(key)) }
}
