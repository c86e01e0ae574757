import Foundation

/// APNs refused a push: the HTTP status and the reason of its JSON body (docs/specs/apns.md
/// "Response"). The sender reads it from an answer; the gateway emulator answers with it.
public struct APNsRejection: Error, Sendable, Hashable, CustomStringConvertible {
    public var status: Int
    /// Nil when the body carried no reason (the status is all there is).
    public var reason: APNsReason?
    /// 410: when the token was last valid, ms since the epoch.
    public var timestamp: Int64?
    public var apnsID: String?

    public init(status: Int, reason: APNsReason?, timestamp: Int64? = nil, apnsID: String? = nil) {
        self.status = status
        self.reason = reason
        self.timestamp = timestamp
        self.apnsID = apnsID
    }

    /// The rejection APNs gives for `reason`, with the status of the spec's table (400 for a
    /// reason outside it, such as the emulator's BadPayload).
    public init(_ reason: APNsReason, timestamp: Int64? = nil) {
        self.init(status: reason.status ?? 400, reason: reason, timestamp: timestamp)
    }

    public var retryability: Retryability {
        if let reason { return reason.retryability(status: status) }
        if status == 429 { return .afterDelay }
        return status >= 500 ? .withBackoff : .never
    }
    public var reasonName: String { reason?.rawValue ?? "HTTP\(status)" }
    public var fix: String { reason?.fix ?? "APNs answered HTTP \(status) without a reason." }
    public var description: String {
        var out = "\(status) \(reasonName)"
        if let timestamp { out += " (token last valid \(Date(timeIntervalSince1970: Double(timestamp) / 1000)))" }
        return out
    }

    /// The JSON body of the answer (`{"reason":…}`, plus `timestamp` on 410).
    public var body: APNsErrorBody { APNsErrorBody(reason: reason ?? .other("HTTP\(status)"), timestamp: timestamp) }
}
