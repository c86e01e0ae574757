import Foundation
import PushCore
import PushDevice
import PushGateway
import PushHTTP

/// `/admin/activities` on the gateway's Google host (loopback only, like `/admin/devices`): the
/// app side of the virtual iPhones' Live Activities, which no push can do — create a phone (and
/// read its push-to-start token), start an activity locally (optionally subscribed to a
/// channel), and read every activity's state.
public struct LiveActivityAdminRoutes: Sendable {
    let fleet: LiveActivityFleet

    public init(fleet: LiveActivityFleet) { self.fleet = fleet }

    public func register(on router: inout Router) {
        let fleet = fleet
        router.add("GET", "/admin/activities") { request in
            if let refusal = AdminAccess.refusal(for: request) { return .now(refusal) }
            for host in fleet.devices { host.advance(to: fleet.now) }
            let body: JSONValue = .object(JSONObject([JSONMember(key: "devices", value: .array(JSONArray(fleet.devices.map(\.json))))]))
            return .now(ServerResponse(status: 200, headers: ["content-type": "application/json"], body: body.minifiedBytes()))
        }
        router.add("POST", "/admin/activities/devices") { request in
            if let refusal = AdminAccess.refusal(for: request) { return .now(refusal) }
            guard let body = object(request.body) else { return .now(problem("body", "send a JSON object {\"name\": \"phone-1\"}")) }
            guard let name = body["name"]?.stringValue, !name.isEmpty else { return .now(problem("name", "a non-empty string naming the phone")) }
            let host = fleet.device(named: name, bundleID: body["bundleId"]?.stringValue ?? "io.pushlab.demo")
            return .now(ServerResponse(status: 201, headers: ["content-type": "application/json"], body: host.json.minifiedBytes()))
        }
        router.add("POST", "/admin/activities") { request in
            if let refusal = AdminAccess.refusal(for: request) { return .now(refusal) }
            guard let body = object(request.body) else { return .now(problem("body", "send a JSON object (docs/live-activities.md)")) }
            guard let device = body["device"]?.stringValue, !device.isEmpty else { return .now(problem("device", "the phone's name, e.g. \"phone-1\"")) }
            guard let type = body["attributesType"]?.stringValue else { return .now(problem("attributesType", "the ActivityAttributes type name")) }
            guard let state = body["contentState"], state.objectValue != nil else { return .now(problem("contentState", "a JSON object")) }
            let attributes = body["attributes"] ?? .object(JSONObject())
            guard attributes.objectValue != nil else { return .now(problem("attributes", "a JSON object")) }
            let channel = body["channel"]?.stringValue
            switch fleet.startActivity(device: device, attributesType: type, attributes: attributes, contentState: state,
                                       channelID: channel, wantsPushToken: body["pushToken"]?.boolValue ?? false,
                                       staleDate: body["staleDate"]?.numberValue?.intValue) {
            case .failure(let reason):
                return .now(.json(404, #"{"error":"channel \#(channel ?? "") is \#(reason.rawValue)","field":"channel","fix":"\#(reason.fix)"}"#))
            case .success(let events):
                let out: JSONValue = .object(JSONObject([
                    JSONMember(key: "device", value: fleet.device(named: device).json),
                    JSONMember(key: "events", value: .array(JSONArray(events.map(\.json)))),
                ]))
                return .now(ServerResponse(status: 201, headers: ["content-type": "application/json"], body: out.minifiedBytes()))
            }
        }
    }
}

private func object(_ bytes: [UInt8]) -> JSONObject? {
    (try? JSONDocument.parse(bytes))?.root.objectValue
}

private func problem(_ field: String, _ fix: String) -> ServerResponse {
    let body: JSONValue = .object(JSONObject([
        JSONMember(key: "error", value: .string("\(field) is missing or has the wrong type")),
        JSONMember(key: "field", value: .string(field)),
        JSONMember(key: "fix", value: .string(fix)),
    ]))
    return ServerResponse(status: 400, headers: ["content-type": "application/json"], body: body.minifiedBytes())
}
