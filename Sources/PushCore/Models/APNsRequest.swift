import Foundation

/// One APNs provider request: `POST /3/device/<token>` with headers and a JSON payload
/// (docs/specs/apns.md "Request"). Senders build it; `headerFields` and `body` are what goes on the wire.
public struct APNsRequest: Sendable, Hashable {
    public var deviceToken: String
    public var pushType: APNsPushType
    /// `apns-topic`: the bundle id plus the push type's suffix.
    public var topic: String?
    /// `apns-priority`: nil sends none (APNs then uses 10).
    public var priority: Int?
    /// `apns-expiration` in UNIX seconds (0 = deliver once).
    public var expiration: Int?
    public var collapseID: String?
    /// `apns-id`; nil lets APNs generate one.
    public var apnsID: String?
    public var payload: JSONValue

    public init(deviceToken: String, pushType: APNsPushType = .alert, topic: String? = nil, priority: Int? = nil,
                expiration: Int? = nil, collapseID: String? = nil, apnsID: String? = nil, payload: JSONValue) {
        self.deviceToken = deviceToken
        self.pushType = pushType
        self.topic = topic
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID
        self.payload = payload
    }

    public var path: String { "/3/device/\(deviceToken)" }

    /// Request headers in a stable order, lowercase names (HTTP/2). `authorization` is added by
    /// the sender, which owns the provider token.
    public var headerFields: [(name: String, value: String)] {
        var out: [(String, String)] = [("apns-push-type", pushType.rawValue)]
        if let topic { out.append(("apns-topic", topic)) }
        out.append(("apns-priority", String(priority ?? pushType.defaultPriority)))
        if let expiration { out.append(("apns-expiration", String(expiration))) }
        if let collapseID { out.append(("apns-collapse-id", collapseID)) }
        if let apnsID { out.append(("apns-id", apnsID)) }
        return out
    }

    /// The minified payload bytes that are sent (and that the 4096/5120 limit applies to).
    public var body: [UInt8] { payload.minifiedBytes() }

    /// The request metadata as the validator sees it.
    public var context: APNsRequestContext {
        APNsRequestContext(pushType: pushType.rawValue, priority: String(priority ?? pushType.defaultPriority),
                           topic: topic, expiration: expiration.map(String.init), collapseID: collapseID,
                           apnsID: apnsID, deviceToken: deviceToken)
    }
}

/// APNs request metadata as raw strings — exactly what arrived on the wire (gateway) or what a
/// sender is about to send — so the validator can check header rules the service enforces.
public struct APNsRequestContext: Sendable, Hashable {
    public var pushType: String?
    public var priority: String?
    public var topic: String?
    public var expiration: String?
    public var collapseID: String?
    public var apnsID: String?
    public var deviceToken: String?

    public init(pushType: String? = nil, priority: String? = nil, topic: String? = nil, expiration: String? = nil,
                collapseID: String? = nil, apnsID: String? = nil, deviceToken: String? = nil) {
        self.pushType = pushType
        self.priority = priority
        self.topic = topic
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID
        self.deviceToken = deviceToken
    }

    /// Reads the `apns-*` headers from a header list (names compared case-insensitively; the
    /// first occurrence wins — duplicates are the gateway's DuplicateHeaders check).
    public init(headers: [(name: String, value: String)], deviceToken: String? = nil) {
        func first(_ name: String) -> String? { headers.first { $0.name.lowercased() == name }?.value }
        self.init(pushType: first("apns-push-type"), priority: first("apns-priority"), topic: first("apns-topic"),
                  expiration: first("apns-expiration"), collapseID: first("apns-collapse-id"), apnsID: first("apns-id"),
                  deviceToken: deviceToken)
    }

    public var isEmpty: Bool { self == APNsRequestContext() }
}
