import PushCore

/// How the sender shows PushCore's `FCMTarget` in logs.
extension FCMTarget {
    /// `token abcdef12…`, `topic news`: safe for logs.
    public var redactedDescription: String {
        if isDevice { return "\(fieldName) \(DeviceToken.redacted(value))" }
        return "\(fieldName) \(value)"
    }
}
