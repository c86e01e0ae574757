/// The `apns-push-type` header (docs/specs/apns.md "Request"): what kind of push it is, which topic
/// suffix it needs, and what the payload implies. Shared by the sender (defaults) and the
/// gateway emulator (checks).
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

    /// `bundleID` with this type's suffix, unless it already ends with it.
    public func topic(forBundleID bundleID: String) -> String {
        let suffix = topicSuffix
        if suffix.isEmpty || bundleID.hasSuffix(suffix) { return bundleID }
        return bundleID + suffix
    }

    /// Background (content-available only) pushes must use priority 5; the rest default to 10.
    public var defaultPriority: Int { self == .background ? 5 : 10 }

    /// Largest payload APNs accepts for this type, in bytes (VoIP: 5120, others: 4096).
    public var maximumPayloadBytes: Int { self == .voip ? 5120 : 4096 }

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
