import Foundation
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

    public init(topic: String? = nil, pushType: APNsPushType? = nil, priority: Int? = nil, expiration: Int? = nil,
                collapseID: String? = nil, apnsID: String? = nil) {
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID
    }
}

/// A payload with its headers resolved and checked once, ready to go to any number of tokens.
public struct PreparedAPNsPush: Sendable {
    public let payload: [UInt8]
    public let pushType: APNsPushType
    /// The full `apns-topic` (suffix included); nil only when unchecked and not given.
    public let topic: String?
    public let priority: Int
    public let expiration: Int?
    public let collapseID: String?
    public let apnsID: String?
    /// Whether pre-flight checks ran (false with `--no-validate`).
    public let validated: Bool

    /// Resolves the defaults and, when `validate` is true, refuses what APNs would refuse.
    /// - Parameter payloadCheck: further payload rules (PushCore's validator) returning
    ///   problems as text; empty means fine.
    public init(payload: [UInt8], options: APNsPushOptions, validate: Bool = true,
                payloadCheck: ((JSONDocument, APNsPushType) -> [String])? = nil) throws(APNsPreflightError) {
        var document: JSONDocument?
        do {
            document = try JSONDocument.parse(payload)
        } catch {
            if validate {
                if payload.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { throw .payloadEmpty }
                throw .payloadNotJSON(error)
            }
        }
        let pushType = options.pushType ?? document.map { APNsPushType.inferred(from: $0.root) } ?? .alert
        self.payload = payload
        self.pushType = pushType
        topic = options.topic.map { pushType.topic(forBundleID: $0) }
        priority = options.priority ?? pushType.defaultPriority
        expiration = options.expiration
        collapseID = options.collapseID
        apnsID = options.apnsID
        validated = validate
        guard validate, let document else { return }

        guard case .object = document.root else { throw .payloadNotObject }
        if payload.count > pushType.maximumPayloadBytes {
            throw .payloadTooLarge(bytes: payload.count, limit: pushType.maximumPayloadBytes, pushType: pushType)
        }
        guard let topic, !topic.isEmpty else { throw .missingTopic }
        guard [10, 5, 1].contains(priority) else { throw .badPriority(priority) }
        if pushType == .background && priority != 5 { throw .backgroundNeedsPriority5(priority) }
        if let expiration, expiration < 0 { throw .badExpiration(expiration) }
        if let collapseID, collapseID.utf8.count > 64 { throw .collapseIDTooLong(bytes: collapseID.utf8.count) }
        if let apnsID, !APNsID.isCanonical(apnsID) { throw .badAPNsID(apnsID) }
        if let payloadCheck {
            let problems = payloadCheck(document, pushType)
            if !problems.isEmpty { throw .payloadInvalid(problems) }
        }
    }
}

/// Why a push was refused before anything was sent. Each case says what to change.
public enum APNsPreflightError: Error, Sendable, Hashable, CustomStringConvertible {
    case payloadEmpty
    case payloadNotJSON(JSONParseError)
    case payloadNotObject
    case payloadTooLarge(bytes: Int, limit: Int, pushType: APNsPushType)
    case missingTopic
    case badPriority(Int)
    case backgroundNeedsPriority5(Int)
    case badExpiration(Int)
    case collapseIDTooLong(bytes: Int)
    case badAPNsID(String)
    /// Findings of the payload validator.
    case payloadInvalid([String])

    /// The APNs reason the server would answer with, when there is one.
    public var wouldBeRejectedAs: APNsReason? {
        switch self {
        case .payloadEmpty: return .payloadEmpty
        case .payloadTooLarge: return .payloadTooLarge
        case .missingTopic: return .missingTopic
        case .badPriority: return .badPriority
        case .badExpiration: return .badExpirationDate
        case .collapseIDTooLong: return .badCollapseId
        case .badAPNsID: return .badMessageId
        default: return nil
        }
    }

    /// How to repair the payload when it is not a JSON object at all (the other cases say it in
    /// their description).
    public var fix: String? {
        switch self {
        case .payloadEmpty: return #"give a JSON object with an aps dictionary, e.g. {"aps":{"alert":"hi"}}"#
        case .payloadNotJSON(let error): return error.fix
        case .payloadNotObject: return #"wrap the content in {"aps": {…}}"#
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .payloadEmpty:
            return "the payload is empty (APNs: PayloadEmpty)"
        case .payloadNotJSON(let why):
            return "the payload is not valid JSON: \(why)"
        case .payloadNotObject:
            return "the payload must be a JSON object ({\"aps\": {…}}); it is another JSON value"
        case .payloadTooLarge(let bytes, let limit, let type):
            return "the payload is \(bytes) bytes; APNs accepts at most \(limit) for \(type.rawValue) pushes (PayloadTooLarge); shorten it"
        case .missingTopic:
            return "no topic: pass --topic with the app's bundle id (or set APNS_TOPIC); APNs answers MissingTopic"
        case .badPriority(let p):
            return "--priority \(p) is not allowed; use 10 (immediate), 5 (power-considerate) or 1 (lowest)"
        case .backgroundNeedsPriority5(let p):
            return "a background push (content-available only) must use priority 5, not \(p); drop --priority or pass --priority 5"
        case .badExpiration(let e):
            return "--expiration \(e) is not UNIX seconds; pass a time in seconds since 1970, or 0 to deliver once"
        case .collapseIDTooLong(let bytes):
            return "--collapse-id is \(bytes) bytes; APNs allows at most 64 (BadCollapseId)"
        case .badAPNsID(let id):
            return "--apns-id '\(id)' is not a canonical lowercase UUID (8-4-4-4-12 hex); omit it to have one generated"
        case .payloadInvalid(let problems):
            return "the payload does not validate:\n  " + problems.joined(separator: "\n  ")
                + "\n  (fix the payload, or pass --no-validate to send it anyway and see what APNs answers)"
        }
    }
}

/// `apns-id` values (docs/specs/apns.md: canonical lowercase UUID).
public enum APNsID {
    /// A new id, lowercase as APNs echoes it.
    public static func generate() -> String { UUID().uuidString.lowercased() }

    public static func isCanonical(_ id: String) -> Bool {
        let u = Array(id.utf8)
        guard u.count == 36 else { return false }
        for (i, b) in u.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                if b != UInt8(ascii: "-") { return false }
            } else if !((b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x66)) {
                return false
            }
        }
        return true
    }
}
