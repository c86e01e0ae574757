import Foundation

/// A target's final result.
public struct TargetOutcome: Sendable, Hashable, Codable {
    public enum Status: String, Sendable, Hashable, Codable {
        /// APNs answered 200 / FCM returned a message name.
        case sent
        /// A final rejection, or retries ran out.
        case failed
    }
    public var status: Status
    /// The provider's HTTP status; nil when no answer came (transport error).
    public var httpStatus: Int?
    /// APNs reason or FCM error status (`BadDeviceToken`, `UNREGISTERED`); transport errors as text.
    public var reason: String?
    /// `apns-id` or the FCM message name.
    public var providerID: String?
    /// The provider called the token dead: it goes to the invalid-token feed.
    public var tokenInvalid: Bool
    /// Attempts made in all, this one included.
    public var attempts: Int
    public var finishedAt: Date

    public init(status: Status, httpStatus: Int? = nil, reason: String? = nil, providerID: String? = nil,
                tokenInvalid: Bool = false, attempts: Int, finishedAt: Date) {
        self.status = status
        self.httpStatus = httpStatus
        self.reason = reason
        self.providerID = providerID
        self.tokenInvalid = tokenInvalid
        self.attempts = attempts
        self.finishedAt = finishedAt
    }
}
