import Foundation
import PushAuth
import PushCore
import PushHTTP
import Synchronization

/// An access token the emulator issued, and what it allows.
struct IssuedAccessToken: Sendable {
    var clientEmail: String
    var projectID: String
    var scopes: Set<String>
    var expiresAt: Date
}

/// Access tokens issued by `POST /token`, looked up by `messages:send`.
final class AccessTokenStore: Sendable {
    private let tokens = Mutex<[String: IssuedAccessToken]>([:])

    func issue(_ grant: IssuedAccessToken) -> String {
        // 24 random bytes from three 64-bit draws (one `getrandom` each; a draw per byte was 24
        // system calls per token, 4% of Fuzz/FuzzFCMOAuth's time).
        var random = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        for _ in 0..<3 { withUnsafeBytes(of: random.next() as UInt64) { bytes.append(contentsOf: $0) } }
        let token = "ya29.pushlab." + Digest.hex(bytes)
        tokens.withLock { tokens in
            let now = Date()
            tokens = tokens.filter { $0.value.expiresAt > now }
            tokens[token] = grant
        }
        return token
    }

    func lookup(_ token: String) -> IssuedAccessToken? { tokens.withLock { $0[token] } }

    /// Forgets every issued token (`Gateway.resetStores`).
    func removeAll() { tokens.withLock { $0 = [:] } }
}
