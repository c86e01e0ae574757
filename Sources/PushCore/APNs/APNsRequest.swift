import Foundation

/// One APNs provider request, `POST /3/device/<token>` with `apns-*` headers and a JSON body
/// (docs/specs/apns.md "Request"). The one request value of pushlab: the sender builds it from
/// typed values and sends `headerFields`; the gateway emulator reads it off the wire
/// (`add(wireField:value:)`); the validator checks it. The header values are kept exactly as
/// they are (or would be) on the wire, so a value APNs refuses can be represented and checked
/// by `APNsRequestRules`.
public struct APNsRequest: Sendable, Hashable {
    public var method: String
    /// The last path segment; empty when the path carries none (MissingDeviceToken).
    public var deviceToken: String
    /// `authorization` (`bearer <provider token>`); the sender adds it per attempt.
    public var authorization: String?
    /// `apns-push-type`: a type APNs knows, or the text of one it does not.
    public var pushType: APNsHeaderValue<APNsPushType>?
    /// `apns-priority`: 10, 5 or 1, or the text of a value APNs refuses.
    public var priority: APNsHeaderValue<APNsPriority>?
    /// `apns-topic`: the bundle id plus the push type's suffix.
    public var topic: String?
    /// `apns-expiration` in UNIX seconds (0 = deliver once).
    public var expiration: String?
    /// `apns-collapse-id`.
    public var collapseID: String?
    /// `apns-id`; nil lets APNs generate one. A canonical UUID, or the text of one that is not.
    public var apnsID: APNsHeaderValue<APNsID>?
    /// One of the headers APNs reads came more than once (DuplicateHeaders).
    public var hasDuplicateHeader: Bool
    /// The payload bytes exactly as sent (the 4096/5120 limit applies to them).
    public var body: [UInt8]

    /// A request from header values as they are on the wire.
    public init(method: String = "POST", pushType: String? = nil, priority: String? = nil, topic: String? = nil,
                expiration: String? = nil, collapseID: String? = nil, apnsID: String? = nil, deviceToken: String = "",
                authorization: String? = nil, body: [UInt8] = []) {
        self.method = method
        self.deviceToken = deviceToken
        self.authorization = authorization
        self.pushType = pushType.map(APNsHeaderValue.init(header:))
        self.priority = priority.map(APNsHeaderValue.init(header:))
        self.topic = topic
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID.map(APNsHeaderValue.init(header:))
        self.hasDuplicateHeader = false
        self.body = body
    }

    /// A request as a sender builds it: typed values, the spec's defaults (the push type's
    /// priority), the payload minified.
    public init(deviceToken: String, pushType: APNsPushType = .alert, topic: String? = nil, priority: APNsPriority? = nil,
                expiration: Int? = nil, collapseID: String? = nil, apnsID: String? = nil, payload: JSONValue) {
        self.init(pushType: pushType.rawValue, priority: (priority ?? pushType.defaultPriority).header, topic: topic,
                  expiration: expiration.map(String.init), collapseID: collapseID, apnsID: apnsID,
                  deviceToken: deviceToken, body: payload.minifiedBytes())
    }

    /// Reads the headers APNs looks at from a header list (names compared case-insensitively;
    /// the first occurrence wins and a second one sets `hasDuplicateHeader`).
    public init(headers: [(name: String, value: String)], deviceToken: String = "", method: String = "POST", body: [UInt8] = []) {
        self.init(method: method, deviceToken: deviceToken, body: body)
        for field in headers { add(wireField: field.name, value: field.value) }
    }

    /// The wire parser: files one received header field. Fields APNs does not read are ignored.
    public mutating func add(wireField name: String, value: String) {
        switch Self.slot(of: name) {
        case .authorization?: Self.keep(value, in: &authorization, duplicate: &hasDuplicateHeader)
        case .apnsID?: Self.keep(value, in: &apnsID, duplicate: &hasDuplicateHeader)
        case .expiration?: Self.keep(value, in: &expiration, duplicate: &hasDuplicateHeader)
        case .priority?: Self.keep(value, in: &priority, duplicate: &hasDuplicateHeader)
        case .pushType?: Self.keep(value, in: &pushType, duplicate: &hasDuplicateHeader)
        case .topic?: Self.keep(value, in: &topic, duplicate: &hasDuplicateHeader)
        case .collapseID?: Self.keep(value, in: &collapseID, duplicate: &hasDuplicateHeader)
        case nil: return
        }
    }

    private static func keep(_ value: String, in slot: inout String?, duplicate: inout Bool) {
        if slot == nil { slot = value } else { duplicate = true }
    }

    private static func keep<Known>(_ value: String, in slot: inout APNsHeaderValue<Known>?, duplicate: inout Bool) {
        if slot == nil { slot = APNsHeaderValue(header: value) } else { duplicate = true }
    }

    private enum Slot { case authorization, apnsID, expiration, priority, pushType, topic, collapseID }

    /// Which header APNs reads `name` is; nil for every other header. Switching on the length
    /// first keeps the common case (a header APNs ignores) to one comparison.
    private static func slot(of name: String) -> Slot? {
        switch name.utf8.count {
        case 7: return same(name, APNsHeader.id) ? .apnsID : nil
        case 10: return same(name, APNsHeader.topic) ? .topic : nil
        case 13:
            if same(name, APNsHeader.authorization) { return .authorization }
            return same(name, APNsHeader.priority) ? .priority : nil
        case 14: return same(name, APNsHeader.pushType) ? .pushType : nil
        case 15: return same(name, APNsHeader.expiration) ? .expiration : nil
        case 16: return same(name, APNsHeader.collapseID) ? .collapseID : nil
        default: return nil
        }
    }

    /// ASCII case-insensitive equality with a lowercase name. HTTP/2 sends names in lower case
    /// (RFC 9113 §8.2.1), and these names fit Swift's inline small-string form, so the exact
    /// comparison answers almost every call; byte-wise folding is for HTTP/1.1 spellings.
    private static func same(_ name: String, _ lowercase: String) -> Bool {
        if name == lowercase { return true }
        // Most names of a length reach here only to differ at once (`:method` against
        // `apns-id`, `:authority` against `apns-topic`): the first byte settles those without
        // the zipped walk.
        guard name.utf8.count == lowercase.utf8.count, let first = name.utf8.first,
              (first >= 65 && first <= 90 ? first | 0x20 : first) == lowercase.utf8.first else { return false }
        return zip(name.utf8, lowercase.utf8).allSatisfy { a, b in (a >= 65 && a <= 90 ? a | 0x20 : a) == b }
    }

    public var path: String { APNsPath.device(deviceToken) }

    /// The `apns-push-type` when it names a type APNs knows.
    public var knownPushType: APNsPushType? { pushType?.known }

    /// The push type APNs applies: the header's, or alert when there is none.
    public var effectivePushType: APNsPushType { knownPushType ?? .alert }

    /// The request's `apns-*` headers in a stable order, lowercase names (HTTP/2).
    /// `authorization` is left out: the sender adds it, as it owns the provider token.
    public var headerFields: [(name: String, value: String)] {
        var out: [(name: String, value: String)] = []
        out.reserveCapacity(6)
        if let pushType { out.append((APNsHeader.pushType, pushType.header)) }
        if let topic { out.append((APNsHeader.topic, topic)) }
        if let priority { out.append((APNsHeader.priority, priority.header)) }
        if let expiration { out.append((APNsHeader.expiration, expiration)) }
        if let collapseID { out.append((APNsHeader.collapseID, collapseID)) }
        if let apnsID { out.append((APNsHeader.id, apnsID.header)) }
        return out
    }

    /// The body as JSON; `.null` when it is not JSON.
    public var payload: JSONValue { (try? JSONParser().parse(body).root) ?? .null }
}
