import Foundation
import PushCore
import PushHTTP

/// The facts of one APNs request the checks look at, pulled out once.
struct APNsRequestFacts: Sendable {
    var method: String
    var deviceToken: String
    var headers: HTTPHeaders
    var body: [UInt8]
    var receivedAt: Date
}

/// One rejection: HTTP status + APNs reason (apns.md, "Response").
struct APNsRejection: Error, Equatable, Sendable {
    var status: Int
    var reason: String
    /// Only for 410 Unregistered: ms since epoch when the token stopped being valid.
    var timestamp: Int64?
}

/// The request checks that need nothing but the request itself, in the order the gateway runs
/// them. Each maps to exactly one APNs reason, so this list can be read line by line against
/// Apple's table (apns.md). Authorization, topic and device checks follow in `APNsRoute`,
/// because they need the key registry and the device registry.
enum APNsHeaderChecks {
    static let pushTypes: Set<String> = ["alert", "background", "location", "voip", "complication", "fileprovider",
                                         "mdm", "liveactivity", "pushtotalk", "widgets", "controls"]
    /// Topic suffix each push type requires (apns.md, `apns-topic`).
    static let topicSuffix: [String: String] = [
        "voip": ".voip", "complication": ".complication", "fileprovider": ".pushkit.fileprovider",
        "location": ".location-query", "liveactivity": ".push-type.liveactivity", "pushtotalk": ".voip-ptt",
        "widgets": ".push-type.widgets", "controls": ".push-type.controls",
    ]
    /// Headers APNs reads; sending one twice is DuplicateHeaders.
    static let apnsHeaders: Set<String> = ["authorization", "apns-push-type", "apns-id", "apns-expiration",
                                           "apns-priority", "apns-topic", "apns-collapse-id"]

    typealias Check = (name: String, run: @Sendable (APNsRequestFacts) -> APNsRejection?)

    static let ordered: [Check] = [
        ("method is POST", { f in f.method == "POST" ? nil : APNsRejection(status: 405, reason: "MethodNotAllowed") }),
        ("device token present", { f in f.deviceToken.isEmpty ? APNsRejection(status: 400, reason: "MissingDeviceToken") : nil }),
        ("device token is hex", { f in DeviceToken.classify(f.deviceToken) == .apns ? nil : APNsRejection(status: 400, reason: "BadDeviceToken") }),
        ("no duplicate headers", { f in
            var seen: [String] = []
            for h in f.headers {
                let name = asciiLowercased(h.name)
                guard apnsHeaders.contains(name) else { continue }
                if seen.contains(name) { return APNsRejection(status: 400, reason: "DuplicateHeaders") }
                seen.append(name)
            }
            return nil
        }),
        ("apns-id is a canonical UUID", { f in
            guard let id = f.headers["apns-id"] else { return nil }
            return isCanonicalUUID(id) ? nil : APNsRejection(status: 400, reason: "BadMessageId")
        }),
        ("apns-expiration is UNIX seconds", { f in
            guard let e = f.headers["apns-expiration"] else { return nil }
            return UInt64(e) != nil ? nil : APNsRejection(status: 400, reason: "BadExpirationDate")
        }),
        ("apns-priority is 10, 5 or 1", { f in
            guard let p = f.headers["apns-priority"] else { return nil }
            return ["10", "5", "1"].contains(p) ? nil : APNsRejection(status: 400, reason: "BadPriority")
        }),
        ("apns-push-type is known", { f in
            guard let t = f.headers["apns-push-type"] else { return nil }
            return pushTypes.contains(t) ? nil : APNsRejection(status: 400, reason: "InvalidPushType")
        }),
        ("apns-topic present", { f in
            // Token-based connections must name the topic (apns.md: Required with token auth).
            (f.headers["apns-topic"] ?? "").isEmpty ? APNsRejection(status: 400, reason: "MissingTopic") : nil
        }),
        ("apns-topic is a bundle id", { f in
            // Letters, digits, '.', '-' (and '_', which some old ids carry); anything else is no topic.
            guard let topic = f.headers["apns-topic"] else { return nil }
            let ok = topic.utf8.allSatisfy { c in
                (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 46 || c == 45 || c == 95
            }
            return ok ? nil : APNsRejection(status: 400, reason: "BadTopic")
        }),
        ("apns-collapse-id at most 64 bytes", { f in
            guard let c = f.headers["apns-collapse-id"] else { return nil }
            return c.utf8.count <= 64 ? nil : APNsRejection(status: 400, reason: "BadCollapseId")
        }),
    ]

    static func firstRejection(_ facts: APNsRequestFacts) -> APNsRejection? {
        for check in ordered { if let r = check.run(facts) { return r } }
        return nil
    }

    /// 8-4-4-4-12 hex digits (APNs accepts either case; it echoes what it got).
    static func isCanonicalUUID(_ s: String) -> Bool {
        let u = Array(s.utf8)
        guard u.count == 36 else { return false }
        for (i, c) in u.enumerated() {
            if [8, 13, 18, 23].contains(i) { if c != 45 { return false }; continue }
            let hex = (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70)
            if !hex { return false }
        }
        return true
    }

    /// True when `topic` carries the suffix `pushType` requires (apns.md `apns-topic`); a token
    /// registered for `bundle.voip` is not the token of `bundle`, hence DeviceTokenNotForTopic.
    static func topicMatchesPushType(_ topic: String, pushType: String?) -> Bool {
        guard let suffix = topicSuffix[pushType ?? "alert"] else { return true }
        return topic.hasSuffix(suffix)
    }

    /// Payload size limit for a push type (apns.md: 4096, VoIP 5120).
    static func maxPayloadBytes(pushType: String?) -> Int { pushType == "voip" ? 5120 : 4096 }
}
