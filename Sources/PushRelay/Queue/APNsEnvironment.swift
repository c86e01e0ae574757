/// Which APNs host a target goes to (docs/specs/apns.md "Hosts").
public enum APNsEnvironment: String, Sendable, Hashable, Codable, CaseIterable {
    case sandbox
    case production
}
