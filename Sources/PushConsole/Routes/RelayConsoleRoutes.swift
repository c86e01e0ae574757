import Foundation
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
