import Foundation
import PushAuth
import PushCore
import PushHTTP

/// Why a provider token could not be verified (all map to 403 InvalidProviderToken except
/// where APNs has a reason of its own).
enum ProviderTokenProblem: Error, Sendable, Equatable {
    case malformed
    case unknownKey
    case badSignature
}
