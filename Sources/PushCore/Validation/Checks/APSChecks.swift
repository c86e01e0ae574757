import Foundation

/// Key and type rules of the `aps` dictionary (docs/specs/apns.md "The aps dictionary").
enum APSChecks {
    /// The `aps` and alert keys; an unknown key gets a "did you mean" from them.
    static let knownKeys: KnownNames = ["alert", "badge", "sound", "thread-id", "category", "content-available", "mutable-content",
                            "target-content-id", "interruption-level", "relevance-score", "filter-criteria", "stale-date",
                            "content-state", "timestamp", "event", "dismissal-date", "attributes-type", "attributes",
                            "input-push-token", "input-push-channel", "url-args"]
    static let alertKeys: KnownNames = ["title", "subtitle", "body", "launch-image", "title-loc-key", "title-loc-args",
                            "subtitle-loc-key", "subtitle-loc-args", "loc-key", "loc-args", "action-loc-key", "action", "summary-arg", "summary-arg-count"]
    static let alertStringKeys: Set<String> = ["title", "subtitle", "body", "launch-image", "title-loc-key", "subtitle-loc-key", "loc-key", "action-loc-key", "action", "summary-arg"]
    static let alertArrayKeys: Set<String> = ["title-loc-args", "subtitle-loc-args", "loc-args"]
    static let cioKeys: Set<String> = ["CIO", CIOPush.deliveryIDKey, CIOPush.deliveryTokenKey]

    static func aps(_ aps: JSONObject, at p: JSONPointer, into c: inout FindingCollector) {
        for m in aps.members {
            let mp = { p / m.key }  // built only when a finding is kept
            switch m.key {
            case "alert": alert(m.value, at: mp(), into: &c)
            case "badge":
                if case .number(let n) = m.value, n.hasIntegralValue, n.doubleValue >= 0 {
                    integerLiteral(n, at: mp(), into: &c)
                } else {
                    c.report(RuleCatalog.apsBadgeType, mp(), "badge is \(m.value.describedForMessage)")
                }
            case "sound": sound(m.value, at: mp(), into: &c)
            case "thread-id", "category", "target-content-id", "filter-criteria", "attributes-type", "input-push-channel":
                if m.value.stringValue == nil {
                    c.report(RuleCatalog.apsStringType, mp(), "\(m.key) is \(m.value.describedForMessage); expected a string")
                }
            case "content-available":
                flag(m.value, at: mp(), rule: RuleCatalog.apsContentAvailableType, into: &c)
            case "mutable-content":
                flag(m.value, at: mp(), rule: RuleCatalog.apsMutableContentType, into: &c)
            case "input-push-token":
                flag(m.value, at: mp(), rule: RuleCatalog.liveActivityInputPushToken, into: &c)
            case "interruption-level":
                if m.value.stringValue.flatMap(APS.InterruptionLevel.init(rawValue:)) == nil {
                    c.report(RuleCatalog.apsInterruptionLevel, mp(), "interruption-level is \(m.value.describedForMessage)")
                }
            case "relevance-score":
                if let n = m.value.numberValue, (0...1).contains(n.doubleValue) { break }
                c.report(RuleCatalog.apsRelevanceScore, mp(), "relevance-score is \(m.value.describedForMessage)")
            case "timestamp", "stale-date", "dismissal-date":
                if case .number(let n) = m.value, n.hasIntegralValue, n.doubleValue >= 0 {
                    integerLiteral(n, at: mp(), into: &c)
                } else {
                    c.report(RuleCatalog.apsDateType, mp(), "\(m.key) is \(m.value.describedForMessage); expected whole UNIX seconds")
                }
            case "content-state", "attributes", "event", "url-args":
                break  // Live Activity checks (event, content-state, attributes) run for liveactivity pushes.
            default:
                if cioKeys.contains(m.key) {
                    c.report(RuleCatalog.cioMisplaced, mp(), "\(m.key) is inside aps; the SDK reads it only at the top level")
                } else {
                    let close = knownKeys.closest(to: m.key)
                    c.report(RuleCatalog.apsUnknownKey, mp(),
                             "aps.\(m.key) is not an aps key" + (close.map { " — did you mean \"\($0)\"?" } ?? ""),
                             fix: close.map { "rename it to \($0), or move custom keys beside aps" })
                }
            }
        }
    }

    /// `content-available` / `mutable-content`: the number 1.
    static func flag(_ v: JSONValue, at p: JSONPointer, rule: ValidationRule, into c: inout FindingCollector) {
        guard case .number(let n) = v else {
            c.report(rule, p, "\(p.lastToken ?? "") is \(v.describedForMessage); iOS expects the number 1")
            return
        }
        if !(n.hasIntegralValue && n.doubleValue == 1) {
            c.report(RuleCatalog.apsFlagValue, p, "\(p.lastToken ?? "") is \(n.text); only 1 has an effect")
        } else {
            integerLiteral(n, at: p, into: &c)
        }
    }

    static func integerLiteral(_ n: JSONNumber, at p: JSONPointer, into c: inout FindingCollector) {
        if !n.isIntegerLiteral {
            c.report(RuleCatalog.apsNumberLiteral, p, "\(p.lastToken ?? "value") is written as \(n.text)",
                     fix: "write \(n.doubleValue.isFinite && abs(n.doubleValue) < 1e15 ? String(Int(n.doubleValue)) : "an integer")")
        }
    }

    static func alert(_ v: JSONValue, at p: JSONPointer, into c: inout FindingCollector) {
        switch v {
        case .string(let s):
            if s.isEmpty { c.report(RuleCatalog.apsAlertEmpty, p, "the alert is an empty string") }
        case .object(let a):
            for m in a.members {
                let mp = { p / m.key }  // built only when a finding is kept
                if alertStringKeys.contains(m.key) {
                    if m.value.stringValue == nil {
                        c.report(RuleCatalog.apsAlertFieldType, mp(), "alert.\(m.key) is \(m.value.describedForMessage); expected a string")
                    }
                } else if alertArrayKeys.contains(m.key) {
                    if let arr = m.value.arrayValue {
                        for (i, e) in arr.elements.enumerated() where e.stringValue == nil {
                            c.report(RuleCatalog.apsAlertFieldType, mp() / i, "alert.\(m.key)[\(i)] is \(e.describedForMessage); loc-args are strings")
                        }
                    } else {
                        c.report(RuleCatalog.apsAlertFieldType, mp(), "alert.\(m.key) is \(m.value.describedForMessage); expected an array of strings")
                    }
                } else if m.key != "summary-arg-count" {
                    c.report(RuleCatalog.apsAlertUnknownKey, mp(),
                             "alert.\(m.key) is not an alert key" + (alertKeys.closest(to: m.key).map { " — did you mean \"\($0)\"?" } ?? ""))
                }
            }
            let visible = ["title", "subtitle", "body", "title-loc-key", "loc-key", "subtitle-loc-key"].contains {
                if let s = a[$0]?.stringValue { return !s.isEmpty } else { return false }
            }
            if !visible { c.report(RuleCatalog.apsAlertEmpty, p, "the alert has no title, subtitle or body text") }
        default:
            c.report(RuleCatalog.apsAlertType, p, "alert is \(v.describedForMessage)")
        }
    }

    static func sound(_ v: JSONValue, at p: JSONPointer, into c: inout FindingCollector) {
        switch v {
        case .string: return
        case .object(let s):
            if s["name"]?.stringValue == nil {
                c.report(RuleCatalog.apsSoundType, p / "name", "a sound dictionary needs a string name (e.g. \"default\")")
            }
            if let crit = s["critical"], !(crit.numberValue.map { $0.isIntegerLiteral && ($0.text == "0" || $0.text == "1") } ?? false) {
                c.report(RuleCatalog.apsSoundType, p / "critical", "sound.critical is \(crit.describedForMessage); expected 0 or 1")
            }
            if let vol = s["volume"], !(vol.numberValue.map { (0...1).contains($0.doubleValue) } ?? false) {
                c.report(RuleCatalog.apsSoundType, p / "volume", "sound.volume is \(vol.describedForMessage); expected a number from 0 to 1")
            }
        default:
            c.report(RuleCatalog.apsSoundType, p, "sound is \(v.describedForMessage)")
        }
    }
}
