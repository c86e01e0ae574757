import Foundation

extension LiveActivityChecks {
    /// Start alert, start-only keys, the 4 KB content-state cap, dates, and the Customer.io
    /// `cioMetadata` block (docs/specs/apns.md "Per-device Live Activity pushes";
    /// docs/specs/device-side.md §7).
    static func more(_ aps: JSONObject, event: String?, at p: JSONPointer, into c: inout FindingCollector) {
        if event == "start" {
            let alert = aps["alert"]?.objectValue
            let hasTitle = alert?["title"] != nil, hasBody = alert?["body"] != nil
            if !(hasTitle && hasBody) {
                c.report(RuleCatalog.liveActivityStartAlert, aps["alert"] == nil ? p : p / "alert",
                         aps["alert"] == nil ? "a start event without an alert"
                                             : "the start alert has no \(hasTitle ? "body" : "title")")
            }
        }
        if let event, event != "start" {
            for key in ["input-push-token", "input-push-channel"] where aps[key] != nil {
                c.report(RuleCatalog.liveActivityInputPushStartOnly, p / key, "\(key) on a\(event == "update" ? "n" : "") \(event) event")
            }
        }
        if let state = aps["content-state"], state.objectValue != nil {
            let size = state.minifiedBytes().count
            if size > LiveActivityLimits.contentStateMaximumBytes {
                c.report(RuleCatalog.liveActivityContentStateSize, p / "content-state",
                         "content-state is \(size) bytes encoded; the limit is \(LiveActivityLimits.contentStateMaximumBytes)")
            }
            if let metadata = state["cioMetadata"] { cioMetadata(metadata, at: p / "content-state" / "cioMetadata", into: &c) }
        }
        if aps["dismissal-date"] != nil, let event, event != "end" {
            c.report(RuleCatalog.liveActivityDismissalDateEndOnly, p / "dismissal-date", "dismissal-date on a\(event == "update" ? "n" : "") \(event) event")
        }
        if let stale = aps["stale-date"]?.numberValue?.intValue, let timestamp = aps["timestamp"]?.numberValue?.intValue, stale <= timestamp {
            c.report(RuleCatalog.liveActivityStaleBeforeTimestamp, p / "stale-date", "stale-date \(stale) is not after timestamp \(timestamp)")
        }
    }

    /// Customer.io's delivery metadata inside the content-state (customerio-ios
    /// `CIOLiveActivityMetadata`: deliveryId, deliveryToken, deepLink — all optional strings).
    static func cioMetadata(_ value: JSONValue, at p: JSONPointer, into c: inout FindingCollector) {
        if value.isNull { return }  // an optional the app leaves nil
        guard let object = value.objectValue else {
            c.report(RuleCatalog.cioLiveMetadataType, p, "cioMetadata is \(value.describedForMessage)")
            return
        }
        for key in ["deliveryId", "deliveryToken", "deepLink"] {
            if let v = object[key], !v.isNull, v.stringValue == nil {
                c.report(RuleCatalog.cioLiveMetadataType, p / key, "cioMetadata.\(key) is \(v.describedForMessage); expected a string")
            }
        }
        let id = object["deliveryId"]?.stringValue ?? "", token = object["deliveryToken"]?.stringValue ?? ""
        if id.isEmpty && !token.isEmpty {
            c.report(RuleCatalog.cioLiveMetadataTokenOnly, p / "deliveryToken", "a deliveryToken without a deliveryId")
        }
        if let link = object["deepLink"]?.stringValue, !link.isEmpty {
            let scheme = URLComponents(string: link)?.scheme ?? ""
            if scheme.isEmpty {
                c.report(RuleCatalog.cioLiveDeepLink, p / "deepLink", "deepLink \"\(link)\" has no scheme")
            }
        }
    }
}
