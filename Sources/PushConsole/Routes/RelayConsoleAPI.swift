import Foundation
import PushAuth
import PushRelay

/// The relay console's JSON (docs/console.md).
enum RelayConsoleAPI {
    struct Overview: Encodable {
        var apps: [Relay.AppSummary]
        var maxBodyBytes: Int
        var maxTargets: Int
    }

    struct Devices: Encodable {
        var app: String
        /// How many of the newest deliveries were read for `tokens`.
        var deliveriesRead: Int
        var tokens: [Token]
        var invalidTokens: [Invalid]

        /// A target the relay delivered to, shortened, with its newest result.
        struct Token: Encodable {
            var token: String
            var kind: String
            var status: String
            var httpStatus: Int?
            var reason: String?
            var providerID: String?
            var attempts: Int
            var finishedAt: Date
            var pushID: PushID
            var results: Int
            var sent: Int

            init(_ d: Relay.DeliveredToken) {
                let o = d.last.outcome
                token = d.target.kind == .apnsToken || d.target.kind == .fcmToken ? Redact.token(d.target.value) : d.target.value
                kind = d.target.kind.rawValue
                status = o.status.rawValue
                httpStatus = o.httpStatus
                reason = o.reason
                providerID = o.providerID
                attempts = o.attempts
                finishedAt = o.finishedAt
                pushID = d.last.pushID
                results = d.results
                sent = d.sent
            }
        }

        struct Invalid: Encodable {
            var token: String
            var kind: String
            var reason: String
            var pushID: PushID
            var reportedAt: Date

            init(_ t: InvalidToken) {
                token = Redact.token(t.token)
                kind = t.kind.rawValue
                reason = t.reason
                pushID = t.pushID
                reportedAt = t.reportedAt
            }
        }
    }
}
