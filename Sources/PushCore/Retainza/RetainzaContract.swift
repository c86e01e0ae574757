import Foundation

/// The Retainza iOS SDK's stated rules (docs/specs/retainza.md §1–§8) and pushlab's model of its
/// ingest API (§9: the seed gives no paths or bodies, so the paths, the credential header and
/// the body keys below are **pushlab's model, not Retainza's wire format**). The device emulator
/// builds its requests from these; the collector checks them against the same definitions.
public enum RetainzaContract {
    /// §2: the default base URL; a custom one must end in `/v1`.
    public static let defaultBaseURL = "https://api.retainza.com/v1"
    public static let requiredBaseURLSuffix = "/v1"
    /// §2: publishable keys; the environment follows the key.
    public static let testKeyPrefix = "pk_test_"
    public static let liveKeyPrefix = "pk_live_"
    public static let publicKeyPrefix = "pk_"
    public static let secretKeyPrefix = "sk_"

    /// §2 defaults.
    public static let defaultMaxQueuedEvents = 100
    public static let defaultSessionTimeoutMs = 30 * 60 * 1000

    /// §6: offline-queue retry back-off: 1 s, doubling, capped at 5 minutes.
    public static let backoffInitialSeconds: Double = 1
    public static let backoffCeilingSeconds: Double = 300

    /// §4: an unchanged push token is re-sent at most once every 24 hours unless forced.
    public static let registrationResendSeconds: Double = 24 * 3600

    /// §2: the UserDefaults keys of the default storage.
    public enum StorageKey: String, CaseIterable, Sendable {
        case queue = "engage.queue.v1"
        case session = "engage.session.v1"
        case install = "engage.install.v1"
        case push = "engage.push.v1"
        case baseURL = "engage.baseUrl.v1"
    }

    /// §9 (pushlab's model): the credential header. The public key is the whole credential.
    public static let keyHeader = "authorization"
    public static func authorization(publicKey: String) -> String { "Bearer " + publicKey }

    /// §9 (pushlab's model): the FCM `data` key that marks a push as Retainza's (FCM copies
    /// `data` to the top level of what iOS receives). Its value is the message id acks carry.
    public static let messageIDKey = "rz_message_id"

    /// §9 (pushlab's model): the local collector mounts the model under this prefix, so an app's
    /// `baseURL` there is `https://<collector>/retainza/v1` (it ends in `/v1`, as §2 requires).
    public static let collectorPrefix = "/retainza/v1"

    /// Which environment a key selects, or why it cannot be used (§2).
    public enum KeyKind: String, Sendable, Equatable {
        case test, live
        /// `pk_` but neither `pk_test_` nor `pk_live_`.
        case otherPublic = "other-public"
        case secret
        case notAKey = "not-a-key"
    }

    public static func classify(key: String) -> KeyKind {
        if key.hasPrefix(secretKeyPrefix) { return .secret }
        if key.hasPrefix(testKeyPrefix) { return .test }
        if key.hasPrefix(liveKeyPrefix) { return .live }
        if key.hasPrefix(publicKeyPrefix) { return .otherPublic }
        return .notAKey
    }

    /// The key as logs show it: its prefix and four characters, never the whole key.
    public static func redacted(key: String) -> String {
        let head = key.hasPrefix(testKeyPrefix) ? testKeyPrefix : key.hasPrefix(liveKeyPrefix) ? liveKeyPrefix
            : key.hasPrefix(secretKeyPrefix) ? secretKeyPrefix : ""
        return head + String(key.dropFirst(head.count).prefix(4)) + "…"
    }
}

/// The ingest API's routes in pushlab's model (docs/specs/retainza.md §9). Each is a path below
/// the base URL; every one can be renamed (an app profile's and the collector's `routes`).
public enum RetainzaRoute: String, CaseIterable, Codable, Sendable {
    case identify, attributes, track, collection, registerPush, unregisterPush, ack

    /// §6: what the offline queue may hold. Push registration and acks are never queued.
    public var isQueueable: Bool {
        switch self {
        case .identify, .attributes, .track, .collection: return true
        case .registerPush, .unregisterPush, .ack: return false
        }
    }

    public var defaultPath: String {
        switch self {
        case .identify: return "/identify"
        case .attributes: return "/attributes"
        case .track: return "/events"
        case .collection: return "/collections"
        case .registerPush: return "/push/register"
        case .unregisterPush: return "/push/unregister"
        case .ack: return "/push/ack"
        }
    }
}

/// A route table: the defaults, any of them overridden.
public struct RetainzaRoutes: Sendable, Equatable {
    public var paths: [RetainzaRoute: String]

    public init(overrides: [RetainzaRoute: String] = [:]) {
        var p: [RetainzaRoute: String] = [:]
        for r in RetainzaRoute.allCases { p[r] = overrides[r] ?? r.defaultPath }
        paths = p
    }

    public func path(_ route: RetainzaRoute) -> String { paths[route] ?? route.defaultPath }

    /// Why a path cannot be a route, or nil.
    public static func problem(path: String) -> String? {
        guard path.hasPrefix("/") else { return "a route path starts with '/' (e.g. \"/events\")" }
        guard !path.contains("?"), !path.contains("#"), !path.contains(" ") else { return "a route path has no query, fragment or spaces" }
        return nil
    }
}

/// The body keys of pushlab's ingest model (docs/specs/retainza.md §9): one JSON object per
/// request. `timestamp` is the call time (§6), in ISO 8601 UTC with milliseconds.
public enum RetainzaBodyKey {
    public static let installID = "installId"
    public static let userID = "userId"
    public static let timestamp = "timestamp"
    public static let event = "event"
    public static let properties = "properties"
    public static let attributes = "attributes"
    public static let collection = "collection"
    public static let operation = "op"
    public static let items = "items"
    public static let token = "token"
    public static let messageID = "messageId"
    public static let action = "action"
}

/// The acks a push handler sends (pushlab's model, §9): arrival and open.
public enum RetainzaAckAction: String, Codable, Sendable, CaseIterable {
    case received, opened
}
