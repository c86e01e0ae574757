/// Which APNs environment a push goes to (docs/specs/apns.md "Connection": the sandbox host
/// for development builds, production for the rest): a relay app's target, the environments a
/// provider certificate may connect to, an emulated device's build. The one definition.
public enum APNsEnvironment: String, Sendable, Hashable, Codable, CaseIterable {
    case sandbox
    case production
}
