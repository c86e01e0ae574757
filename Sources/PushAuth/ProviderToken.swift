import Foundation
import PushCore

/// One APNs provider token as handed to a request. `description` never shows the JWT.
public struct ProviderToken: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    public let jwt: String
    public let issuedAt: Date

    /// The `authorization` header value.
    public var authorization: String { "bearer \(jwt)" }
    public var description: String { "ProviderToken(issuedAt: \(issuedAt), bearer <redacted>)" }
    /// `dump()` and debuggers show the same redacted view.
    public var customMirror: Mirror { Mirror(self, children: ["issuedAt": issuedAt, "jwt": "<redacted>"]) }
}
