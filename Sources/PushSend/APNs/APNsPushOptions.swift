import PushCore

/// The headers a user may set on an APNs push (docs/specs/apns.md "Request"). Anything left nil gets
/// the spec's default when the push is prepared.
public struct APNsPushOptions: Sendable, Hashable {
    /// The app's bundle id; the push type's suffix is added (`io.x` → `io.x.voip`).
    public var topic: String?
    /// Inferred from the payload when nil.
    public var pushType: APNsPushType?
    /// 10, 5 or 1; default 10, or 5 for background pushes.
    public var priority: Int?
    /// UNIX seconds; 0 = deliver once, do not store. Not sent when nil.
    public var expiration: Int?
    public var collapseID: String?
    /// Only for a single push; generated (lowercase UUID) when nil so every result can be
    /// correlated with the server's logs.
    public var apnsID: String?
    /// Send `apns-priority` and `apns-id` only when given, as gorush's APNs client does (the
    /// relay's gorush API, docs/relay.md "Migrating from gorush"): APNs then applies its own
    /// default priority (10) and answers with the apns-id it made.
    public var onlyGivenHeaders: Bool

    public init(topic: String? = nil, pushType: APNsPushType? = nil, priority: Int? = nil, expiration: Int? = nil,
                collapseID: String? = nil, apnsID: String? = nil, onlyGivenHeaders: Bool = false) {
        self.onlyGivenHeaders = onlyGivenHeaders
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID
    }
}
