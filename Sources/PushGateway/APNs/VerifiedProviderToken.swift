import Foundation
import PushAuth
import PushCore
import PushHTTP
import Synchronization

/// What the gateway learned from a provider token whose signature checked out.
struct VerifiedProviderToken: Sendable, Equatable {
    var keyID: String
    var teamID: String
    var issuedAt: Date
}
