import Foundation
import PushCore
import PushHTTP
import PushRelay

extension DemoScenario {
    static let relayDelivery = "demo-relay-1"

    /// The demo's relay step (docs/relay.md): a `pushlab relay` in process, its queue in the lab's
    /// work directory and its app pointed at the lab's emulator, takes a gorush-format request
    /// (`POST /gorush/demo/api/push?sync=true` with an API key) and sends it to the virtual iPhone,
    /// whose extension reports the delivered metric — counted in the collector's report.
    func relayStep(lab: Lab, record: (String, Bool, [String]) -> Void) async {
        let title = "relay: a gorush-format request queued by pushlab relay, sent to the emulator, delivered on the iPhone"
        let certs = lab.configuration.certsDirectory
        guard let apnsURL = lab.gateway.apnsURL else { return record(title, false, ["the APNs gateway has no URL"]) }
        let json = #"""
            {"listen": {"port": 0}, "workers": {"concurrency": 4},
             "apps": {"demo": {"target": "emulator",
               "apns": {"key": "AuthKey_PLDEVKEY01.p8", "key_id": "PLDEVKEY01", "team_id": "PLDEVTEAM1", "bundle_id": "\#(profile.bundleID)"}}}}
            """#
        let relay: Relay
        do {
            let config = try RelayConfig.parse(Array(json.utf8), source: "demo relay.json", baseDirectory: certs)
            let emulator = EmulatorEndpoints(apnsURL: apnsURL, fcmURL: lab.gateway.fcmURL ?? "", tokenURL: lab.gateway.tokenURL ?? "",
                                             caFile: certs + "/ca.pem")
            relay = try Relay(config: config, dataDirectory: lab.configuration.workDirectory.appendingPathComponent("relay").path, emulator: emulator,
                              observer: lab.configuration.relayObserver)
            try await relay.start()
        } catch {
            return record(title, false, ["the relay did not start: \(error)"])
        }
        let outcome = await sendThroughRelay(relay, lab: lab)
        await relay.stop()
        await lab.fleet.waitUntilIdle()
        let nse = lab.fleet.finished.first { $0.report.deliveryID == Self.relayDelivery }?.report
        record(title, outcome.ok && nseOK(nse, rich: false), outcome.details + describe(nse))
    }

    private func sendThroughRelay(_ relay: Relay, lab: Lab) async -> (ok: Bool, details: [String]) {
        guard let base = relay.addresses?.cleartextURL else { return (false, ["the relay has no address"]) }
        let key: String
        do { key = try await relay.keys.create(scope: .app("demo"), label: "demo").key } catch { return (false, ["no API key: \(error)"]) }
        // gorush's body as a gorush client sends it; no topic: the relay takes the app's bundle id.
        let body = #"""
            {"notifications": [{"platform": 1, "tokens": ["\#(Self.apnsToken)"], "title": "pushlab demo via the relay",
              "message": "\#(Self.relayDelivery)", "mutable_content": true,
              "data": {"CIO-Delivery-ID": "\#(Self.relayDelivery)", "CIO-Delivery-Token": "demo-token"}}]}
            """#
        var headers = HTTPHeaders()
        headers.add("authorization", "Bearer \(key)")
        headers.add("content-type", "application/json")
        let request = HTTPRequest(method: "POST", url: base + "/gorush/demo/api/push?sync=true", headers: headers, body: Array(body.utf8))
        do {
            let response = try await lab.client.send(request)
            let answer = try? JSONDocument.parse(response.body).root
            let counts = answer?["counts"]?.numberValue?.intValue ?? 0
            let logs = answer?["logs"]?.arrayValue?.count ?? -1
            let pushID = answer?["push_ids"]?.arrayValue?.elements.first?.stringValue ?? "?"
            let status = try? await relay.queue.status(of: PushID(pushID), includeTargets: false)
            let sent = status?.sent ?? 0
            return (response.status == 200 && counts == 1 && logs == 0 && sent == 1, [
                "POST /gorush/demo/api/push?sync=true → \(response.status), counts \(counts), \(logs) failure log(s)",
                "push \(pushID): \(sent) of \(status?.targetCount ?? 0) target(s) sent, durably queued in relay/queue.sqlite",
            ])
        } catch {
            return (false, ["the request to the relay failed: \(error)"])
        }
    }
}
