import Foundation
import PushCore

/// A configuration file or flag the gateway could not use: what is wrong (file, line:column or
/// JSON pointer) and one fix.
public enum GatewayConfigError: Error, CustomStringConvertible, Sendable {
    case unreadable(path: String)
    /// `fix` nil: the devices file's shape is the fix.
    case invalidDevices(path: String, why: String, fix: String? = nil)
    case invalidKey(spec: String, why: String)

    public var reason: String {
        switch self {
        case .unreadable(let path): return "\(path): cannot read file"
        case .invalidDevices(let path, let why, _): return "\(path): invalid devices file: \(why)"
        case .invalidKey(let spec, let why): return "--apns-key \(spec): \(why)"
        }
    }

    public var fix: String {
        switch self {
        case .unreadable: return "check the path and its permissions"
        case .invalidDevices(_, _, let fix?): return fix
        case .invalidDevices: return #"{"devices": [{"name": "iphone", "apnsToken": "<64 hex>", "bundleID": "io.example.app"}]}"#
        case .invalidKey: return "--apns-key KEYID:TEAMID:public.pem"
        }
    }

    public var description: String { "\(reason)\n  fix: \(fix)" }
}
