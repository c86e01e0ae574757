import Foundation
import PushAuth
import PushCore

/// A service account's public half: what the OAuth route verifies assertions with.
public struct TrustedServiceAccount: Sendable {
    public var clientEmail: String
    public var projectID: String
    public var keyID: String?
    public var publicKey: PublicKey
    public init(clientEmail: String, projectID: String, keyID: String?, publicKey: PublicKey) {
        self.clientEmail = clientEmail
        self.projectID = projectID
        self.keyID = keyID
        self.publicKey = publicKey
    }
}
