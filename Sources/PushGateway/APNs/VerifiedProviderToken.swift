import Foundation
import PushAuth
import PushCore

/// What the gateway learned from a provider token whose signature checked out.
struct VerifiedProviderToken: Sendable, Equatable {
    var keyID: String
    var teamID: String
    var issuedAt: Date
}
