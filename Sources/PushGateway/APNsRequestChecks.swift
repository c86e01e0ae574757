import Foundation
import PushCore
import PushHTTP

/// The facts of one APNs request the checks look at, pulled out in one pass over the header
/// fields (the route reads each header several times; looking them up each time cost more
/// than all the checks together — benchmarks/results/gateway.md).
///
/// A class: the checks are a list of closures, and handing each of them a struct of nine
/// strings cost a retain and release per string per check.
final class APNsRequestFacts: Sendable {
    let method: String
    let deviceToken: String
    let receivedAt: Date
    let authorization: String?
    let apnsID: String?
    let expiration: String?
    let priority: String?
    let pushType: String?
    let topic: String?
    let collapseID: String?
    /// One of the headers APNs reads came more than once (DuplicateHeaders).
    let hasDuplicateHeader: Bool

    init(method: String, deviceToken: String, headers: HTTPHeaders, receivedAt: Date) {
        self.method = method
        self.deviceToken = deviceToken
        self.receivedAt = receivedAt
        var authorization, apnsID, expiration, priority, pushType, topic, collapseID: String?
        var duplicate = false
        for field in headers {
            switch Self.slot(of: field) {
            case .authorization?: Self.keep(field.value, in: &authorization, duplicate: &duplicate)
            case .apnsID?: Self.keep(field.value, in: &apnsID, duplicate: &duplicate)
            case .expiration?: Self.keep(field.value, in: &expiration, duplicate: &duplicate)
            case .priority?: Self.keep(field.value, in: &priority, duplicate: &duplicate)
            case .pushType?: Self.keep(field.value, in: &pushType, duplicate: &duplicate)
            case .topic?: Self.keep(field.value, in: &topic, duplicate: &duplicate)
            case .collapseID?: Self.keep(field.value, in: &collapseID, duplicate: &duplicate)
            case nil: continue
            }
        }
        (self.authorization, self.apnsID, self.expiration, self.priority) = (authorization, apnsID, expiration, priority)
        (self.pushType, self.topic, self.collapseID, self.hasDuplicateHeader) = (pushType, topic, collapseID, duplicate)
    }

    /// The first value wins, as in `HTTPHeaders`' subscript; a second one is a duplicate.
    private static func keep(_ value: String, in slot: inout String?, duplicate: inout Bool) {
        if slot == nil { slot = value } else { duplicate = true }
    }

    private enum Slot { case authorization, apnsID, expiration, priority, pushType, topic, collapseID }

    /// Which header APNs reads `field` is; nil for every other header.
    private static func slot(of field: HTTPHeader) -> Slot? {
        switch field.name.utf8.count {
        case 7: return field.hasName("apns-id") ? .apnsID : nil
        case 10: return field.hasName("apns-topic") ? .topic : nil
        case 13:
            if field.hasName("authorization") { return .authorization }
            return field.hasName("apns-priority") ? .priority : nil
        case 14: return field.hasName("apns-push-type") ? .pushType : nil
        case 15: return field.hasName("apns-expiration") ? .expiration : nil
        case 16: return field.hasName("apns-collapse-id") ? .collapseID : nil
        default: return nil
        }
    }
}

/// One rejection: HTTP status + APNs reason (docs/specs/apns.md, "Response").
struct APNsRejection: Error, Equatable, Sendable {
    var status: Int
    var reason: String
    /// Only for 410 Unregistered: ms since epoch when the token stopped being valid.
    var timestamp: Int64?
}

/// The request checks that need nothing but the request itself, in the order the gateway runs
/// them. Each maps to exactly one APNs reason, so this list can be read line by line against
/// Apple's table (docs/specs/apns.md). Authorization, topic and device checks follow in `APNsRoute`,
/// because they need the key registry and the device registry.
enum APNsHeaderChecks {
    static let pushTypes: Set<String> = ["alert", "background", "location", "voip", "complication", "fileprovider",
                                         "mdm", "liveactivity", "pushtotalk", "widgets", "controls"]
    /// Topic suffix each push type requires (docs/specs/apns.md, `apns-topic`).
    static let topicSuffix: [String: String] = [
        "voip": ".voip", "complication": ".complication", "fileprovider": ".pushkit.fileprovider",
        "location": ".location-query", "liveactivity": ".push-type.liveactivity", "pushtotalk": ".voip-ptt",
        "widgets": ".push-type.widgets", "controls": ".push-type.controls",
    ]
    typealias Check = (name: String, run: @Sendable (APNsRequestFacts) -> APNsRejection?)

    static let ordered: [Check] = [
        ("method is POST", { f in f.method == "POST" ? nil : APNsRejection(status: 405, reason: "MethodNotAllowed") }),
        ("device token present", { f in f.deviceToken.isEmpty ? APNsRejection(status: 400, reason: "MissingDeviceToken") : nil }),
        ("device token is hex", { f in DeviceToken.classify(f.deviceToken) == .apns ? nil : APNsRejection(status: 400, reason: "BadDeviceToken") }),
        ("no duplicate headers", { f in f.hasDuplicateHeader ? APNsRejection(status: 400, reason: "DuplicateHeaders") : nil }),
        ("apns-id is a canonical UUID", { f in
            guard let id = f.apnsID else { return nil }
            return isCanonicalUUID(id) ? nil : APNsRejection(status: 400, reason: "BadMessageId")
        }),
        ("apns-expiration is UNIX seconds", { f in
            guard let e = f.expiration else { return nil }
            return UInt64(e) != nil ? nil : APNsRejection(status: 400, reason: "BadExpirationDate")
        }),
        ("apns-priority is 10, 5 or 1", { f in
            guard let p = f.priority else { return nil }
            return p == "10" || p == "5" || p == "1" ? nil : APNsRejection(status: 400, reason: "BadPriority")
        }),
        ("apns-push-type is known", { f in
            guard let t = f.pushType else { return nil }
            return pushTypes.contains(t) ? nil : APNsRejection(status: 400, reason: "InvalidPushType")
        }),
        ("apns-topic present", { f in
            // Token-based connections must name the topic (docs/specs/apns.md: Required with token auth).
            (f.topic ?? "").isEmpty ? APNsRejection(status: 400, reason: "MissingTopic") : nil
        }),
        ("apns-topic is a bundle id", { f in
            // Letters, digits, '.', '-' (and '_', which some old ids carry); anything else is no topic.
            guard let topic = f.topic else { return nil }
            let ok = topic.utf8.allSatisfy { c in
                (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 46 || c == 45 || c == 95
            }
            return ok ? nil : APNsRejection(status: 400, reason: "BadTopic")
        }),
        ("apns-collapse-id at most 64 bytes", { f in
            guard let c = f.collapseID else { return nil }
            return c.utf8.count <= 64 ? nil : APNsRejection(status: 400, reason: "BadCollapseId")
        }),
    ]

    static func firstRejection(_ facts: APNsRequestFacts) -> APNsRejection? {
        for check in ordered { if let r = check.run(facts) { return r } }
        return nil
    }

    /// The client's `apns-id` when the answer may echo it: only a canonical UUID is (anything
    /// else is refused as BadMessageId or, on a fault answer, replaced by a fresh id).
    static func echoableID(_ id: String?) -> String? { id.flatMap { isCanonicalUUID($0) ? $0 : nil } }

    /// 8-4-4-4-12 hex digits (APNs accepts either case; it echoes what it got).
    static func isCanonicalUUID(_ s: String) -> Bool {
        guard s.utf8.count == 36 else { return false }
        for (i, c) in s.utf8.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 { if c != 45 { return false }; continue }
            let hex = (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70)
            if !hex { return false }
        }
        return true
    }

    /// True when `topic` carries the suffix `pushType` requires (docs/specs/apns.md `apns-topic`); a token
    /// registered for `bundle.voip` is not the token of `bundle`, hence DeviceTokenNotForTopic.
    static func topicMatchesPushType(_ topic: String, pushType: String?) -> Bool {
        guard let suffix = topicSuffix[pushType ?? "alert"] else { return true }
        return topic.hasSuffix(suffix)
    }

    /// Payload size limit for a push type (docs/specs/apns.md: 4096, VoIP 5120).
    static func maxPayloadBytes(pushType: String?) -> Int { pushType == "voip" ? 5120 : 4096 }
}
