import Foundation

/// The `apns-push-type` header (docs/specs/apns.md "Request"): what kind of push it is, which topic
/// suffix it needs, its size limit and default priority, and what the payload implies. The one
/// definition the sender (defaults), the validator and the gateway emulator (checks) share.
public enum APNsPushType: String, Sendable, Hashable, Codable, CaseIterable {
    case alert, background, location, voip, complication, fileprovider, mdm, liveactivity, pushtotalk, widgets, controls

    /// The suffix APNs expects after the bundle id in `apns-topic` for this push type;
    /// alert and background (and mdm, whose topic is the MDM certificate's) use the bare id.
    public var topicSuffix: String {
        switch self {
        case .voip: return ".voip"
        case .complication: return ".complication"
        case .fileprovider: return ".pushkit.fileprovider"
        case .location: return ".location-query"
        case .liveactivity: return ".push-type.liveactivity"
        case .pushtotalk: return ".voip-ptt"
        case .widgets: return ".push-type.widgets"
        case .controls: return ".push-type.controls"
        case .alert, .background, .mdm: return ""
        }
    }

    /// Every non-empty topic suffix, longest first (to find which one a topic carries).
    public static let topicSuffixes: [String] = allCases.map(\.topicSuffix).filter { !$0.isEmpty }.sorted { $0.count > $1.count }

    /// The known suffix `topic` ends with, if any.
    public static func suffix(of topic: String) -> String? {
        // Most topics are bare bundle ids: when the last byte ends no suffix, none can match
        // (`hasSuffix` needs the bytes to match), without comparing each suffix.
        guard let last = topic.utf8.last, last < 128, suffixLastBytes[Int(last >> 6)] & (1 << UInt64(last & 63)) != 0 else { return nil }
        return topicSuffixes.first { hasSuffix(topic, $0) }
    }

    /// The last bytes of `topicSuffixes` (all ASCII), as a 128-bit set.
    private static let suffixLastBytes: [UInt64] = topicSuffixes.reduce(into: [0, 0]) { set, suffix in
        let byte = suffix.utf8.last!
        set[Int(byte >> 6)] |= 1 << UInt64(byte & 63)
    }

    /// `topic.hasSuffix(suffix)` for the ASCII suffixes above, on the UTF-8 bytes: the gateway
    /// asks this several times per APNs request, and `String.hasSuffix` compares grapheme by
    /// grapheme. Equal bytes give the same answer as `hasSuffix` when the topic is ASCII (every
    /// valid topic is a bundle id); for any other topic `hasSuffix` itself decides.
    @inline(__always)
    static func hasSuffix(_ topic: String, _ suffix: String) -> Bool {
        var topic = topic, suffix = suffix
        // An ASCII suffix's Characters are its bytes, so a Character match implies a byte match.
        let bytesMatch = topic.withUTF8 { t in
            suffix.withUTF8 { s in
                t.count >= s.count && (s.isEmpty || memcmp(t.baseAddress! + (t.count - s.count), s.baseAddress!, s.count) == 0)
            }
        }
        guard bytesMatch else { return false }
        return topic.withUTF8 { $0.allSatisfy { $0 < 0x80 } } || topic.hasSuffix(suffix)
    }

    /// True when `topic` fits this push type: it ends with the type's suffix, or — for types
    /// without one — ends with none of the known suffixes. A token registered for `bundle.voip`
    /// is not a token of `bundle` (DeviceTokenNotForTopic).
    public func fits(topic: String) -> Bool {
        let suffix = topicSuffix
        return suffix.isEmpty ? APNsPushType.suffix(of: topic) == nil : Self.hasSuffix(topic, suffix)
    }

    /// The bundle id a topic of this push type addresses: the topic without the type's suffix.
    public func bundleID(fromTopic topic: String) -> String {
        let suffix = topicSuffix
        return !suffix.isEmpty && Self.hasSuffix(topic, suffix) ? String(topic.dropLast(suffix.count)) : topic
    }

    /// `bundleID` with this type's suffix, unless it already ends with it.
    public func topic(forBundleID bundleID: String) -> String {
        let suffix = topicSuffix
        if suffix.isEmpty || bundleID.hasSuffix(suffix) { return bundleID }
        return bundleID + suffix
    }

    /// Background (content-available only) pushes must use priority 5; the rest default to 10.
    public var defaultPriority: APNsPriority { self == .background ? .powerConsiderate : .immediate }

    /// The one priority iOS delivers this type with, when it demands one: background pushes
    /// sent at 10 are throttled or dropped (docs/specs/apns.md "Request").
    public var requiredPriority: APNsPriority? { self == .background ? .powerConsiderate : nil }

    /// Largest payload APNs accepts for this type, in bytes (VoIP: 5120, others: 4096).
    public var maximumPayloadBytes: Int { self == .voip ? APNsPushType.voipPayloadLimit : APNsPushType.payloadLimit }

    /// docs/specs/apns.md "Request": payloads up to 4096 bytes, VoIP up to 5120.
    public static let payloadLimit = 4096
    public static let voipPayloadLimit = 5120

    /// The push type a payload implies when none is given: Live Activity keys → liveactivity;
    /// `content-available: 1` with nothing to show → background; anything else → alert.
    /// (voip and the other PushKit types cannot be told from a payload: pass them explicitly.)
    public static func inferred(from payload: JSONValue) -> APNsPushType {
        guard let aps = payload["aps"]?.objectValue else { return .alert }
        if aps["content-state"] != nil || aps["event"] != nil || aps["attributes-type"] != nil {
            return .liveactivity
        }
        let contentAvailable = aps["content-available"]?.numberValue?.intValue == 1
        let shows = aps["alert"] != nil || aps["badge"] != nil || aps["sound"] != nil
        return contentAvailable && !shows ? .background : .alert
    }
}
