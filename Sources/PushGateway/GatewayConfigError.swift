import Foundation
import PushCore

/// A configuration file or flag the gateway could not use.
public enum GatewayConfigError: Error, CustomStringConvertible, Sendable {
    case unreadable(path: String)
    case invalidDevices(path: String, why: String)
    case invalidKey(spec: String, why: String)

    public var description: String {
        switch self {
        case .unreadable(let path): return "\(path): cannot read file"
        case .invalidDevices(let path, let why):
            return "\(path): invalid devices file: \(why)\n  fix: {\"devices\": [{\"name\": \"iphone\", \"apnsToken\": \"<64 hex>\", \"bundleID\": \"io.example.app\"}]}"
        case .invalidKey(let spec, let why): return "--apns-key \(spec): \(why)\n  fix: --apns-key KEYID:TEAMID:public.pem"
        }
    }
}
