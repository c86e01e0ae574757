import Foundation
import PushAuth
import PushCore
import PushHTTP

/// Verifies provider JWTs against the keys the gateway trusts.
protocol APNsKeyRing: Sendable {
    func key(id: String) -> TrustedAPNsKey?
    /// Parses and verifies `jwt` (ES256, `kid` known, signature valid).
    func verify(_ jwt: String) -> Result<VerifiedProviderToken, ProviderTokenProblem>
}
