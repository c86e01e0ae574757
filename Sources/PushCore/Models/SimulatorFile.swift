import Foundation

/// An `.apns` file for `xcrun simctl push`: a normal APNs payload plus a top-level
/// `"Simulator Target Bundle": "<bundle id>"` (docs/specs/apns.md "Simulator files").
public struct SimulatorFile: Sendable, Hashable {
    public static let targetBundleKey = "Simulator Target Bundle"

    public var targetBundle: String?
    /// The payload as delivered: the file without the target bundle key.
    public var payload: JSONValue

    public init(targetBundle: String?, payload: JSONValue) {
        self.targetBundle = targetBundle
        self.payload = payload
    }

    /// Reads a parsed `.apns` file; nil when the root is not an object.
    public init?(root: JSONValue) {
        guard var o = root.objectValue else { return nil }
        targetBundle = o[SimulatorFile.targetBundleKey]?.stringValue
        o.members.removeAll { $0.key == SimulatorFile.targetBundleKey }
        payload = .object(o)
    }

    /// The file's JSON: the payload with the target bundle key first.
    public var json: JSONValue {
        guard case .object(let o) = payload else { return payload }
        var members = o.members
        if let targetBundle { members.insert(JSONMember(key: SimulatorFile.targetBundleKey, value: .string(targetBundle)), at: 0) }
        return .object(JSONObject(members))
    }
}
