import Foundation
import PushAuth
import PushHTTP
import PushRelay

/// The relay's console API (`pushlab relay --console`, docs/console.md "On the relay"), behind
/// the same access check as every console route (loopback, or the console's access token):
/// the apps, a push through the native API's own path, the tokens delivered to and the
/// invalid-token feed, and the counters `/metrics` exports. Device tokens are shortened;
/// nothing serves an API key, key material or a JWT.
extension Console {
    /// Most deliveries the devices view reads per app (newest first).
    static let relayDeliveriesRead = 2_000
    /// Most invalid tokens it lists per app.
    static let relayInvalidTokensRead = 500

    func relayOverview() -> ServerResponse {
        guard let relay = attachedRelay else { return Self.noRelay }
        return Self.json(200, RelayConsoleAPI.Overview(apps: relay.appSummaries, maxBodyBytes: relay.config.limits.maxBodyBytes,
                                                       maxTargets: relay.config.limits.maxTargets))
    }

    /// The send form's push: the body goes unchanged to the native API's code for the app in
    /// the path, and its answer comes back unchanged (202 + push id, or the refusal naming the field).
    func relayPush(_ request: ServerRequest) async -> ServerResponse {
        guard let relay = attachedRelay else { return Self.noRelay }
        let app = request.pathParameters["app"].map { $0.removingPercentEncoding ?? $0 } ?? ""
        return await relay.submitPush(app: app, body: request.body)
    }

    func relayDevices(_ request: ServerRequest) async -> ServerResponse {
        guard let relay = attachedRelay else { return Self.noRelay }
        let name = QueryItems(request.query)["app"] ?? relay.config.apps.first?.name ?? ""
        guard relay.config.app(named: name) != nil else {
            return Self.refusal(400, field: "app", "no app '\(name)' in relay.json",
                                fix: "use one of: \(relay.config.apps.map(\.name).joined(separator: ", "))")
        }
        do {
            let delivered = try await relay.deliveredTokens(app: name, limit: Self.relayDeliveriesRead)
            let invalid = try await relay.invalidTokens(app: name, limit: Self.relayInvalidTokensRead)
            return Self.json(200, RelayConsoleAPI.Devices(
                app: name, deliveriesRead: Self.relayDeliveriesRead,
                tokens: delivered.map(RelayConsoleAPI.Devices.Token.init),
                invalidTokens: invalid.map(RelayConsoleAPI.Devices.Invalid.init)))
        } catch {
            return Self.refusal(503, field: nil, "the relay's queue cannot be read: \(error)", fix: "see the relay's log and retry")
        }
    }

    func relayMetrics() async -> ServerResponse {
        guard let relay = attachedRelay else { return Self.noRelay }
        return Self.json(200, await relay.metricsSnapshot())
    }

    static var noRelay: ServerResponse {
        refusal(404, field: nil, "this console does not run on a relay", fix: "start it with pushlab relay --console")
    }
}

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
            var pushID: String
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
            var pushID: String
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
