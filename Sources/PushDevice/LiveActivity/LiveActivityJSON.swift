import Foundation
import PushCore

// The JSON shapes `pushlab activity --json` prints and `/admin/activities` answers. The
// emulated clock counts UNIX seconds (as `aps.timestamp` does); the JSON shows each instant as
// an ISO 8601 date, as every pushlab --json output does.

extension JSONValue {
    /// UNIX seconds as an ISO 8601 date string (`2026-01-01T00:00:00Z`).
    public static func isoDate(unixSeconds: Int) -> JSONValue {
        .string(ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(unixSeconds))))
    }
}
extension LiveActivity {
    public var json: JSONValue {
        var o: [JSONMember] = [
            JSONMember(key: "id", value: .string(id)),
            JSONMember(key: "attributesType", value: .string(attributesType)),
            JSONMember(key: "phase", value: .string(phase.rawValue)),
            JSONMember(key: "attributes", value: attributes),
            JSONMember(key: "contentState", value: contentState),
            JSONMember(key: "startedAt", value: .isoDate(unixSeconds: startedAt)),
            JSONMember(key: "timestamp", value: .isoDate(unixSeconds: timestamp)),
        ]
        if let staleDate { o.append(JSONMember(key: "staleDate", value: .isoDate(unixSeconds: staleDate))) }
        if let dismissalDate { o.append(JSONMember(key: "dismissalDate", value: .isoDate(unixSeconds: dismissalDate))) }
        if let relevanceScore { o.append(JSONMember(key: "relevanceScore", value: .number(JSONNumber(relevanceScore)))) }
        if let pushToken { o.append(JSONMember(key: "pushToken", value: .string(pushToken))) }
        if let channelID { o.append(JSONMember(key: "channel", value: .string(channelID))) }
        if let widgetURL { o.append(JSONMember(key: "widgetURL", value: .string(widgetURL))) }
        if let lastNotApplied {
            o.append(JSONMember(key: "notApplied", value: .number(JSONNumber(notApplied))))
            o.append(JSONMember(key: "lastNotApplied", value: lastNotApplied.json))
        }
        return .object(JSONObject(o))
    }
}

extension LiveActivityTimelineEvent {
    public var json: JSONValue {
        var o: [JSONMember] = [JSONMember(key: "at", value: .isoDate(unixSeconds: at)), JSONMember(key: "event", value: .string(kind.rawValue))]
        if let activityID { o.append(JSONMember(key: "activity", value: .string(activityID))) }
        o.append(JSONMember(key: "detail", value: .string(detail)))
        return .object(JSONObject(o))
    }
}

extension LiveActivityHost {
    public var json: JSONValue {
        .object(JSONObject([
            JSONMember(key: "name", value: .string(deviceName)),
            JSONMember(key: "bundleId", value: .string(bundleID)),
            JSONMember(key: "pushToStartToken", value: .string(pushToStartToken)),
            JSONMember(key: "activities", value: .array(JSONArray(snapshot.map(\.json)))),
        ]))
    }
}
