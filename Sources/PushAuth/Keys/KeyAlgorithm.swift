import Foundation

/// What a key is, in words a user recognises. Never includes key material.
public enum KeyAlgorithm: Sendable, Hashable, CustomStringConvertible {
    case p256
    case ec(curve: String)
    case rsa(bits: Int)
    case other

    public var description: String {
        switch self {
        case .p256: return "EC P-256"
        case .ec(let curve): return "EC \(KeyAlgorithm.friendlyCurveName(curve))"
        case .rsa(let bits): return "RSA \(bits)"
        case .other: return "an unsupported key type"
        }
    }

    static func friendlyCurveName(_ curve: String) -> String {
        switch curve {
        case "secp384r1": return "P-384 (secp384r1)"
        case "secp521r1": return "P-521 (secp521r1)"
        case "": return "(unknown curve)"
        default: return curve
        }
    }
}
