import Foundation
import PushCore

/// The JSON the relay answers and posts: results, deliveries, invalid tokens, webhook events.
/// Keys are snake_case; times are RFC 3339 UTC with milliseconds.
enum RelayJSON {
    static func object(_ members: [(String, JSONValue?)]) -> JSONValue {
        .object(JSONObject(members.compactMap { key, value in value.map { JSONMember(key: key, value: $0) } }))
    }

    static func number(_ n: Int?) -> JSONValue? { n.map { .number(JSONNumber($0)) } }
    static func string(_ s: String?) -> JSONValue? { s.map { .string($0) } }

    static func time(_ date: Date) -> JSONValue { .string(ISO8601Timestamp.format(date)) }

    /// `{"apns": "<token>", "environment": "production"}`, `{"fcm": …}`, `{"topic": …}`, `{"condition": …}`.
    static func target(_ target: PushTarget) -> [(String, JSONValue?)] {
        [(target.kind.rawValue, .string(target.value)), ("environment", string(target.environment?.rawValue))]
    }

    static func outcome(_ o: TargetOutcome, kind: PushTarget.Kind) -> [(String, JSONValue?)] {
        [("status", .string(o.status.rawValue)), ("http_status", number(o.httpStatus)), ("reason", string(o.reason)),
         (kind == .apnsToken ? "apns_id" : "message_name", string(o.providerID)), ("token_invalid", o.tokenInvalid ? .bool(true) : nil),
         ("attempts", number(o.attempts)), ("finished_at", time(o.finishedAt))]
    }

    static func pushStatus(_ s: PushStatus) -> JSONValue {
        var members: [(String, JSONValue?)] = [
            ("id", .string(s.pushID.rawValue)), ("app", .string(s.app)), ("accepted_at", time(s.acceptedAt)),
            ("targets", number(s.targetCount)), ("sent", number(s.sent)), ("failed", number(s.failed)),
            ("pending", number(s.targetCount - s.sent - s.failed)), ("finished", .bool(s.isFinished)),
        ]
        if !s.targets.isEmpty {
            members.append(("results", .array(JSONArray(s.targets.map { t in
                var m: [(String, JSONValue?)] = [("index", number(t.index))] + target(t.target)
                if let o = t.outcome {
                    m += outcome(o, kind: t.target.kind)
                } else {
                    m += [("status", .string(t.phase.rawValue)), ("attempts", number(t.attempts)), ("last_error", string(t.lastError))]
                }
                return object(m)
            }))))
        }
        return object(members)
    }

    static func delivery(_ d: DeliveryRecord) -> JSONValue {
        object([("push_id", .string(d.pushID.rawValue)), ("index", number(d.index))] + target(d.target) + outcome(d.outcome, kind: d.target.kind))
    }

    static func invalidToken(_ t: InvalidToken) -> JSONValue {
        object([(t.kind.rawValue, .string(t.token)), ("reason", .string(t.reason)), ("push_id", .string(t.pushID.rawValue)),
                ("reported_at", time(t.reportedAt))])
    }

    static func resultEvent(pushID: PushID, index: Int, target t: PushTarget, outcome o: TargetOutcome) -> JSONValue {
        object([("type", .string("result")), ("push_id", .string(pushID.rawValue)), ("index", number(index))] + target(t) + outcome(o, kind: t.kind))
    }

    static func invalidTokenEvent(pushID: PushID, target t: PushTarget, outcome o: TargetOutcome) -> JSONValue {
        object([("type", .string("invalid_token")), ("push_id", .string(pushID.rawValue))] + target(t)
               + [("reason", string(o.reason)), ("reported_at", time(o.finishedAt))])
    }

    static func pushFinishedEvent(_ s: PushStatus) -> JSONValue {
        object([("type", .string("push_finished")), ("push_id", .string(s.pushID.rawValue)), ("targets", number(s.targetCount)),
                ("sent", number(s.sent)), ("failed", number(s.failed))])
    }
}
