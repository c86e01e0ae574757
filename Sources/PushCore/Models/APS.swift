import Foundation

/// What iOS reads from the `aps` dictionary (docs/specs/apns.md: "The `aps` dictionary"), as the device
/// emulator needs it to render a notification. Reading is strict where iOS is: a field of the
/// wrong type is absent here (and the validator reports it).
public struct APS: Sendable, Hashable {
    public struct Alert: Sendable, Hashable {
        public var title: String?
        public var subtitle: String?
        public var body: String?
        public var launchImage: String?
        public var titleLocKey: String?
        public var locKey: String?
        public init(title: String? = nil, subtitle: String? = nil, body: String? = nil,
                    launchImage: String? = nil, titleLocKey: String? = nil, locKey: String? = nil) {
            self.title = title
            self.subtitle = subtitle
            self.body = body
            self.launchImage = launchImage
            self.titleLocKey = titleLocKey
            self.locKey = locKey
        }
        /// True when there is something to show.
        public var isVisible: Bool {
            [title, subtitle, body, titleLocKey, locKey].contains { ($0 ?? "").isEmpty == false }
        }
    }

    public struct Sound: Sendable, Hashable {
        public var name: String
        public var critical: Bool
        public var volume: Double?
        public init(name: String, critical: Bool = false, volume: Double? = nil) {
            self.name = name
            self.critical = critical
            self.volume = volume
        }
    }

    public enum InterruptionLevel: String, Sendable, CaseIterable {
        case passive, active, timeSensitive = "time-sensitive", critical
    }

    public var alert: Alert?
    public var badge: Int?
    public var sound: Sound?
    public var threadID: String?
    public var category: String?
    /// `content-available` is the number 1 (a background update).
    public var contentAvailable: Bool
    /// `mutable-content` is the number 1: iOS runs the Notification Service Extension.
    public var mutableContent: Bool
    public var targetContentID: String?
    public var interruptionLevel: InterruptionLevel?
    public var relevanceScore: Double?
    public var filterCriteria: String?
    /// Live Activity keys.
    public var event: String?
    public var timestamp: Int?
    public var staleDate: Int?
    public var dismissalDate: Int?
    public var contentState: JSONObject?

    public init(alert: Alert? = nil, badge: Int? = nil, sound: Sound? = nil, threadID: String? = nil,
                category: String? = nil, contentAvailable: Bool = false, mutableContent: Bool = false,
                targetContentID: String? = nil, interruptionLevel: InterruptionLevel? = nil,
                relevanceScore: Double? = nil, filterCriteria: String? = nil, event: String? = nil,
                timestamp: Int? = nil, staleDate: Int? = nil, dismissalDate: Int? = nil, contentState: JSONObject? = nil) {
        self.alert = alert
        self.badge = badge
        self.sound = sound
        self.threadID = threadID
        self.category = category
        self.contentAvailable = contentAvailable
        self.mutableContent = mutableContent
        self.targetContentID = targetContentID
        self.interruptionLevel = interruptionLevel
        self.relevanceScore = relevanceScore
        self.filterCriteria = filterCriteria
        self.event = event
        self.timestamp = timestamp
        self.staleDate = staleDate
        self.dismissalDate = dismissalDate
        self.contentState = contentState
    }

    /// Reads `payload["aps"]`; nil when the payload has no `aps` object.
    public init?(payload: JSONValue) {
        guard case .object(let aps) = payload["aps"] ?? .null else { return nil }
        self.init(aps: aps)
    }

    public init(aps: JSONObject) {
        self.init()
        switch aps["alert"] {
        case .string(let body)?: alert = Alert(body: body)
        case .object(let a)?:
            alert = Alert(title: a["title"]?.stringValue, subtitle: a["subtitle"]?.stringValue,
                          body: a["body"]?.stringValue, launchImage: a["launch-image"]?.stringValue,
                          titleLocKey: a["title-loc-key"]?.stringValue, locKey: a["loc-key"]?.stringValue)
        default: break
        }
        badge = aps["badge"]?.numberValue?.intValue
        switch aps["sound"] {
        case .string(let name)?: sound = Sound(name: name)
        case .object(let s)?:
            if let name = s["name"]?.stringValue {
                sound = Sound(name: name, critical: APS.isOne(s["critical"]), volume: s["volume"]?.numberValue?.doubleValue)
            }
        default: break
        }
        threadID = aps["thread-id"]?.stringValue
        category = aps["category"]?.stringValue
        contentAvailable = APS.isOne(aps["content-available"])
        mutableContent = APS.isOne(aps["mutable-content"])
        targetContentID = aps["target-content-id"]?.stringValue
        interruptionLevel = aps["interruption-level"]?.stringValue.flatMap(InterruptionLevel.init(rawValue:))
        relevanceScore = aps["relevance-score"]?.numberValue?.doubleValue
        filterCriteria = aps["filter-criteria"]?.stringValue
        event = aps["event"]?.stringValue
        timestamp = aps["timestamp"]?.numberValue?.intValue
        staleDate = aps["stale-date"]?.numberValue?.intValue
        dismissalDate = aps["dismissal-date"]?.numberValue?.intValue
        contentState = aps["content-state"]?.objectValue
    }

    /// Apple documents these flags as the number 1. pushlab's device emulator accepts a number
    /// whose value is 1 (`1`, `1.0`) and nothing else — a boolean or a string counts as absent,
    /// matching the validator's `aps.*.type` errors.
    static func isOne(_ value: JSONValue?) -> Bool {
        guard case .number(let n)? = value else { return false }
        return n.hasIntegralValue && n.doubleValue == 1
    }

    /// iOS shows an alert (and runs the NSE when `mutableContent`) only when there is alert text.
    public var showsAlert: Bool { alert?.isVisible ?? false }
    /// The NSE runs only when `mutable-content` is 1 and the push shows an alert (docs/specs/device-side.md §2).
    public var runsServiceExtension: Bool { mutableContent && showsAlert }
}
