import Foundation

/// What kind of document was validated.
public enum PayloadFormat: String, Sendable, Hashable, Codable, CaseIterable {
    /// An APNs payload (`{"aps": …}` plus custom keys).
    case apns
    /// An FCM HTTP v1 request body (`{"message": …}`).
    case fcm
    /// An `.apns` file for `xcrun simctl push` (a payload plus "Simulator Target Bundle").
    case simulator

    /// Guesses the format from the top-level keys.
    public static func detect(_ root: JSONValue) -> PayloadFormat {
        guard let o = root.objectValue else { return .apns }
        if o["message"] != nil || o["validate_only"] != nil { return .fcm }
        if o[SimulatorFile.targetBundleKey] != nil { return .simulator }
        if o["aps"] == nil, o["to"] != nil || o["registration_ids"] != nil || o["notification"] != nil || o["token"] != nil {
            return .fcm
        }
        return .apns
    }
}
