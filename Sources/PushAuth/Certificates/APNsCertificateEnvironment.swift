import Foundation

/// Which APNs environments a provider certificate may connect to.
public enum APNsCertificateEnvironment: String, Sendable, Hashable, Codable, CaseIterable {
    case sandbox, production
}
