import Foundation
import PushCore

/// One APNs provider token as handed to a request. `description` never shows the JWT.
public struct ProviderToken: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    public let jwt: String
    public let issuedAt: Date
    /// The `authorization` header value. Stored, not computed: every request of a bulk send
    /// carries it, and one token serves for 50 minutes.
    public let authorization: String

    init(jwt: String, issuedAt: Date) {
        self.jwt = jwt
        self.issuedAt = issuedAt
        authorization = "bearer " + jwt
    }
    public var description: String { "ProviderToken(issuedAt: \(issuedAt), bearer <redacted>)" }
    /// `dump()` and debuggers show the same redacted view.
    public var customMirror: Mirror { Mirror(self, children: ["issuedAt": issuedAt, "jwt": "<redacted>"]) }
}
