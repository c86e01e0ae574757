import Foundation

/// The JSON body of an APNs error response: `{"reason": …}`, plus `"timestamp"` (ms since the
/// epoch the token was last valid) on 410 (docs/specs/apns.md "Response").
public struct APNsErrorBody: Sendable, Hashable, Codable {
    public var reason: APNsReason
    public var timestamp: Int64?

    public init(reason: APNsReason, timestamp: Int64? = nil) {
        self.reason = reason
        self.timestamp = timestamp
    }

    /// Parses an error body; nil when it is not a JSON object with a string `reason`.
    public init?(json: [UInt8]) {
        guard let decoded = try? JSONDecoder().decode(APNsErrorBody.self, from: Data(json)) else { return nil }
        self = decoded
    }

    /// The body the gateway emulator sends.
    public var json: [UInt8] {
        var text = "{\"reason\":" + JSONValue.quoted(reason.rawValue)
        if let timestamp { text += ",\"timestamp\":\(timestamp)" }
        return Array((text + "}").utf8)
    }

    private enum CodingKeys: String, CodingKey { case reason, timestamp }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        reason = APNsReason(rawValue: try c.decode(String.self, forKey: .reason))
        // Apple sends a number; tolerate a numeric string rather than dropping the whole body.
        if let n = try? c.decodeIfPresent(Int64.self, forKey: .timestamp) {
            timestamp = n
        } else if let d = try? c.decodeIfPresent(Double.self, forKey: .timestamp) {
            timestamp = Int64(d)
        } else if let s = try? c.decodeIfPresent(String.self, forKey: .timestamp) {
            timestamp = Int64(s)
        } else {
            timestamp = nil
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(reason.rawValue, forKey: .reason)
        try c.encodeIfPresent(timestamp, forKey: .timestamp)
    }
}
