import Foundation

/// Live Activity rules (apns-push-type liveactivity).
enum LiveActivityChecks {
    static func aps(_ aps: JSONObject, at p: JSONPointer, into c: inout FindingCollector) {
        let event = aps["event"]?.stringValue
        if event == nil || !["start", "update", "end"].contains(event!) {
            c.report(RuleCatalog.liveActivityEvent, aps["event"] == nil ? p : p / "event",
                     aps["event"].map { "event is \($0.describedForMessage)" } ?? "the Live Activity push has no event")
        }
        if aps["timestamp"] == nil {
            c.report(RuleCatalog.liveActivityTimestamp, p, "the Live Activity push has no timestamp")
        }
        if event == "start" || event == "update", aps["content-state"]?.objectValue == nil {
            c.report(RuleCatalog.liveActivityContentState, aps["content-state"] == nil ? p : p / "content-state",
                     aps["content-state"].map { "content-state is \($0.describedForMessage)" } ?? "a \(event!) event without content-state")
        }
        if event == "start", aps["attributes-type"]?.stringValue == nil || aps["attributes"]?.objectValue == nil {
            c.report(RuleCatalog.liveActivityStartAttributes, p, "a start event needs attributes-type and attributes")
        }
        LiveActivityChecks.more(aps, event: event, at: p, into: &c)
    }
}
