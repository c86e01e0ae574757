import Foundation
import PushAuth
import PushCore
import PushHTTP

/// Per-connection token state (docs/specs/apns.md: team pinned per connection, refresh floor, one key).
struct APNsConnectionAuth: Sendable {
    var keyID: String?
    var teamID: String?
    /// The token last accepted on this connection and when it took over.
    var token: String?
    /// The whole `authorization` value that carried `token`: the HTTP/2 session hands the
    /// route the same string for a field that repeats the last request's (HTTP2Session
    /// `previousFields`), so the common case is one pointer comparison.
    var header: String?
    var tokenIssuedAt: Date?
    var tokenChangedAt: Date?
    /// A request with a valid token has succeeded: the stream limit was raised.
    var authenticated = false
}
