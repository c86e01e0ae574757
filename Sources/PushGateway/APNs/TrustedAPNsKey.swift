import Foundation
import PushAuth
import PushCore

/// A key the gateway trusts: an APNs `.p8` public half, the team that owns it, and an
/// optional environment restriction (docs/specs/apns.md: BadEnvironmentKeyIdInToken).
public struct TrustedAPNsKey: Sendable {
    public enum Restriction: String, Sendable { case sandboxOnly = "sandbox", productionOnly = "production" }
    public var keyID: String
    public var teamID: String
    public var restriction: Restriction?
    public init(keyID: String, teamID: String, restriction: Restriction? = nil) {
        self.keyID = keyID
        self.teamID = teamID
        self.restriction = restriction
    }
}
