import Foundation

/// An FCM HTTP v1 send request: `{"validate_only": …, "message": {…}}` (docs/specs/fcm.md "Send").
/// The typed fields cover what pushlab builds and the gateway reads; sections pushlab does not
/// model in detail (android, webpush) stay as raw JSON so nothing is lost.
public struct FCMSendRequest: Sendable, Hashable {
    public var validateOnly: Bool?
    public var message: FCMMessage

    public init(validateOnly: Bool? = nil, message: FCMMessage) {
        self.validateOnly = validateOnly
        self.message = message
    }

    /// Reads a request body that has already passed validation; nil when it is not one.
    public init?(json: JSONValue) {
        guard let m = json["message"], let message = FCMMessage(json: m) else { return nil }
        self.message = message
        validateOnly = json["validate_only"]?.boolValue
    }

    public var json: JSONValue {
        var o = JSONObject()
        if let validateOnly { o["validate_only"] = .bool(validateOnly) }
        o["message"] = message.json
        return .object(o)
    }
}
