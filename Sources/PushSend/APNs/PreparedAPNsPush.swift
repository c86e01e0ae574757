import Foundation
import PushCore
import PushHTTP

/// A payload with its headers resolved and checked once, ready to go to any number of tokens.
public struct PreparedAPNsPush: Sendable {
    /// The body as sent: the payload minified when it parses (PushCore `bodyAsSent`, the form
    /// the validator measured), else the bytes as given (only with `validate: false`).
    public let payload: [UInt8]
    public let pushType: APNsPushType
    /// The full `apns-topic` (suffix included); nil only when unchecked and not given.
    public let topic: String?
    public let priority: Int
    public let expiration: Int?
    public let collapseID: String?
    public let apnsID: String?
    /// `apns-priority` is sent only when it was given, and no `apns-id` is made up
    /// (`APNsPushOptions.onlyGivenHeaders`).
    public let onlyGivenHeaders: Bool
    private let priorityGiven: Bool
    /// Whether pre-flight checks ran (false with `--no-validate`).
    public let validated: Bool
    /// The rule catalog's warnings for the payload as it will be sent (empty when unchecked).
    public private(set) var warnings: [ValidationFinding] = []
    /// The `apns-*` header fields every token gets, in `APNsRequest.headerFields` order, all
    /// but `apns-id` (which comes last there and differs per send). Built once here rather
    /// than per push: a bulk send sends the same fields many thousand times.
    private(set) var sharedHeaderFields: [HTTPHeader] = []

    /// Resolves the defaults and, when `validate` is true, refuses what APNs would refuse
    /// (PushCore's `APNsRequestRules`) and what the rule catalog calls an error, for every
    /// caller alike: the CLI, the demo, the simulator, the relay.
    public init(payload: [UInt8], options: APNsPushOptions, validate: Bool = true) throws(APNsPreflightError) {
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
        // What the validator measured is what goes on the wire (PushCore `bodyAsSent`).
        self.payload = document.map { APNsRequestRules.bodyAsSent($0.root) } ?? payload
        self.pushType = pushType
        topic = options.topic.map { pushType.topic(forBundleID: $0) }
        priority = options.priority ?? pushType.defaultPriority.rawValue
        expiration = options.expiration
        collapseID = options.collapseID
        apnsID = options.apnsID
        onlyGivenHeaders = options.onlyGivenHeaders
        priorityGiven = options.priority != nil
        validated = validate
        var shared = self.request
        shared.apnsID = nil
        sharedHeaderFields = shared.headerFields.map { HTTPHeader($0.name, $0.value) }
        guard validate, let document else { return }

        guard case .object = document.root else { throw .payloadNotObject }
        // The service's own rules (PushCore `APNsRequestRules`), in the order a user fixes them.
        let request = self.request
        for (rule, error) in [
            (APNsRequestRule.payloadWithinLimit, APNsPreflightError.payloadTooLarge(bytes: self.payload.count, limit: pushType.maximumPayloadBytes, pushType: pushType)),
            (.topicPresent, .missingTopic),
            (.priorityIsKnown, .badPriority(priority)),
        ] where rule.isViolated(by: request) { throw error }
        if let required = pushType.requiredPriority, priority != required.rawValue { throw .backgroundNeedsPriority5(priority) }
        for (rule, error) in [
            (APNsRequestRule.expirationIsUNIXSeconds, APNsPreflightError.badExpiration(expiration ?? 0)),
            (.collapseIDAtMost64Bytes, .collapseIDTooLong(bytes: collapseID?.utf8.count ?? 0)),
            (.apnsIDIsCanonicalUUID, .badAPNsID(apnsID ?? "")),
        ] where rule.isViolated(by: request) { throw error }
        // The rest of the catalog, on the headers as they will be sent (defaults resolved).
        let report = Validator(options: ValidationOptions(apns: request)).validate(document, as: .apns)
        if !report.errors.isEmpty { throw .payloadInvalid(report.errors) }
        warnings = report.warnings
    }
}

extension PreparedAPNsPush {
    /// The request every token gets: the device token and `apns-id` are filled in per send.
    public var request: APNsRequest {
        APNsRequest(pushType: pushType.rawValue, priority: onlyGivenHeaders && !priorityGiven ? nil : String(priority), topic: topic, expiration: expiration.map(String.init),
                    collapseID: collapseID, apnsID: apnsID, body: payload)
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
    /// The rule catalog's errors for the payload.
    case payloadInvalid([ValidationFinding])

    /// The service rule the push breaks, when APNs itself would refuse it.
    public var rule: APNsRequestRule? {
        switch self {
        case .payloadEmpty: return .payloadNotEmpty
        case .payloadTooLarge: return .payloadWithinLimit
        case .missingTopic: return .topicPresent
        case .badPriority: return .priorityIsKnown
        case .badExpiration: return .expirationIsUNIXSeconds
        case .collapseIDTooLong: return .collapseIDAtMost64Bytes
        case .badAPNsID: return .apnsIDIsCanonicalUUID
        default: return nil
        }
    }

    /// The APNs reason the server would answer with, when there is one.
    public var wouldBeRejectedAs: APNsReason? { rule?.reason }

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
            return "the payload is \(bytes) bytes \(APNsRequestRules.bodyFormAsSent); APNs accepts at most \(limit) for \(type.rawValue) pushes (PayloadTooLarge); shorten it"
        case .missingTopic:
            return "no topic: pass --topic with the app's bundle id (or set APNS_TOPIC); APNs answers MissingTopic"
        case .badPriority(let p):
            return "--priority \(p) is not allowed; use 10 (immediate), 5 (power-considerate) or 1 (lowest)"
        case .backgroundNeedsPriority5(let p):
            return "a background push (content-available only) must use priority 5, not \(p); drop --priority or pass --priority 5"
        case .badExpiration(let e):
            return "--expiration \(e) is not UNIX seconds; pass a time in seconds since 1970, or 0 to deliver once"
        case .collapseIDTooLong(let bytes):
            return "--collapse-id is \(bytes) bytes; APNs allows at most \(APNsRequestRules.maximumCollapseIDBytes) (BadCollapseId)"
        case .badAPNsID(let id):
            return "--apns-id '\(id)' is not a canonical UUID (8-4-4-4-12 hex digits); omit it to have one generated"
        case .payloadInvalid:
            return description(source: nil)
        }
    }

    /// As `description`, with each finding of `.payloadInvalid` prefixed by `source` (the file).
    public func description(source: String?) -> String {
        switch self {
        case .payloadInvalid(let findings):
            let problems = findings.map { "\(source.map { $0 + " " } ?? "")\($0.place): \($0.message) — fix: \($0.fix)" }
            return "the payload does not validate:\n  " + problems.joined(separator: "\n  ")
                + "\n  (fix the payload, or pass --no-validate to send it anyway and see what APNs answers)"
        default:
            return description
        }
    }
}
