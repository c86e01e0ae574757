import PushAuth

/// A credential that never changes (tests; a token minted elsewhere).
public struct FixedCredential: APNsCredential, FCMAccessTokenProvider {
    public let value: String
    public init(_ value: String) { self.value = value }
    public nonisolated(nonsending) func authorization() async throws -> String { "bearer \(value)" }
    public nonisolated(nonsending) func bearerToken() async throws -> String { value }
    public func renew(afterRejecting rejected: String) async -> Bool { false }
}
