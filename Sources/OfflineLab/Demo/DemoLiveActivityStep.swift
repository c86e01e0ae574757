import Foundation
import PushAuth
import PushCore
import PushGateway
import PushSend

extension DemoScenario {
    /// The demo's Live Activity step (docs/live-activities.md): a broadcast channel is created
    /// through the channel-management API, two virtual iPhones start an activity subscribed to
    /// it, and one broadcast over HTTP/2 + TLS updates both.
    func liveActivityStep(lab: Lab, credential: any APNsCredential, record: (String, Bool, [String]) -> Void) async {
        let title = "Live Activity: one broadcast updated the activities of two subscribed iPhones"
        guard let url = lab.gateway.apnsURL, let endpoint = try? APNsEndpoint.custom(url) else {
            return record(title, false, ["the APNs gateway has no URL"])
        }
        let channels = BroadcastChannelClient(management: ChannelManagementEndpoint(baseURL: endpoint.baseURL), push: endpoint,
                                              transport: lab.client, credential: credential)
        let bundle = "io.pushlab.demo"
        guard case .success(let channel, _) = await channels.create(bundleID: bundle, policy: .noStorage) else {
            return record(title, false, ["channel create was refused"])
        }
        let phones = ["live-phone-1", "live-phone-2"]
        for phone in phones {
            _ = lab.liveActivities.startActivity(device: phone, attributesType: "DeliveryAttributes", attributes: ["orderID": "A-1042"],
                                                 contentState: ["status": "placed", "minutesAway": 30], channelID: channel)
        }
        let before = lab.liveActivities.applied
        let timestamp = Int(Date().timeIntervalSince1970) + 1
        let payload = Array(#"{"aps":{"event":"update","timestamp":\#(timestamp),"content-state":{"status":"on the way","minutesAway":12}}}"#.utf8)
        let answer = await channels.broadcast(bundleID: bundle, channelID: channel, payload: payload, expiration: 0)
        guard case .success = answer else { return record(title, false, ["the broadcast was refused: \(answer)"]) }
        let deadline = Date().addingTimeInterval(5)
        while lab.liveActivities.applied < before + phones.count, Date() < deadline { try? await Task.sleep(for: .milliseconds(2)) }
        let states = phones.map { phone in
            lab.liveActivities.device(named: phone).snapshot.first?.contentState["status"]?.stringValue ?? "none"
        }
        _ = await channels.delete(bundleID: bundle, channelID: channel)
        record(title, states.allSatisfy { $0 == "on the way" }, [
            "channel \(channel) (no-storage) created, broadcast accepted",
            zip(phones, states).map { "\($0): \($1)" }.joined(separator: ", "),
        ])
    }
}
