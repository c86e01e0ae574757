import Foundation

/// The `reason` of an APNs error response (docs/specs/apns.md "Response"). The sender maps answers to
/// it, the gateway emulator answers with it: one table, one place. A reason this table does
/// not know is kept verbatim in `.other` and never shown as "unknown".
public enum APNsReason: Sendable, Hashable, CustomStringConvertible {
    // 400
    case badCollapseId, badDeviceToken, badExpirationDate, badMessageId, badPriority, badTopic
    case deviceTokenNotForTopic, duplicateHeaders, idleTimeout, invalidPushType, missingDeviceToken
    case missingTopic, payloadEmpty, topicDisallowed
    // 403
    case badCertificate, badCertificateEnvironment, expiredProviderToken, forbidden
    case invalidProviderToken, missingProviderToken, unrelatedKeyIdInToken
    case badEnvironmentKeyIdInToken, badEnvironmentKeyInToken
    // 404, 405
    case badPath, methodNotAllowed
    // 410
    case unregistered, expiredToken
    // 413
    case payloadTooLarge
    // 429
    case tooManyProviderTokenUpdates, tooManyRequests
    // 500, 503
    case internalServerError, serviceUnavailable, shutdown
    /// A reason outside the spec's table, exactly as the server spelled it.
    case other(String)

    /// pushlab's gateway emulator answers a body that is not a JSON object with this reason:
    /// Apple documents none for it (docs/gateway.md), and an unknown reason exercises a
    /// client's fallback path. Not part of `allKnown`.
    public static let emulatorBadPayload = APNsReason.other("BadPayload")

    /// Every reason of the spec's table, in table order.
    public static let allKnown: [APNsReason] = [
        .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority, .badTopic,
        .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken,
        .missingTopic, .payloadEmpty, .topicDisallowed,
        .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden,
        .invalidProviderToken, .missingProviderToken, .unrelatedKeyIdInToken,
        .badEnvironmentKeyIdInToken, .badEnvironmentKeyInToken,
        .badPath, .methodNotAllowed, .unregistered, .expiredToken, .payloadTooLarge,
        .tooManyProviderTokenUpdates, .tooManyRequests, .internalServerError, .serviceUnavailable, .shutdown,
    ]

    private static let byName: [String: APNsReason] = Dictionary(uniqueKeysWithValues: allKnown.map { ($0.rawValue, $0) })

    /// Maps a reason string to its case; anything else is kept verbatim.
    public init(rawValue: String) {
        self = APNsReason.byName[rawValue] ?? .other(rawValue)
    }

    /// The reason exactly as it appears on the wire.
    public var rawValue: String {
        switch self {
        case .badCollapseId: return "BadCollapseId"
        case .badDeviceToken: return "BadDeviceToken"
        case .badExpirationDate: return "BadExpirationDate"
        case .badMessageId: return "BadMessageId"
        case .badPriority: return "BadPriority"
        case .badTopic: return "BadTopic"
        case .deviceTokenNotForTopic: return "DeviceTokenNotForTopic"
        case .duplicateHeaders: return "DuplicateHeaders"
        case .idleTimeout: return "IdleTimeout"
        case .invalidPushType: return "InvalidPushType"
        case .missingDeviceToken: return "MissingDeviceToken"
        case .missingTopic: return "MissingTopic"
        case .payloadEmpty: return "PayloadEmpty"
        case .topicDisallowed: return "TopicDisallowed"
        case .badCertificate: return "BadCertificate"
        case .badCertificateEnvironment: return "BadCertificateEnvironment"
        case .expiredProviderToken: return "ExpiredProviderToken"
        case .forbidden: return "Forbidden"
        case .invalidProviderToken: return "InvalidProviderToken"
        case .missingProviderToken: return "MissingProviderToken"
        case .unrelatedKeyIdInToken: return "UnrelatedKeyIdInToken"
        case .badEnvironmentKeyIdInToken: return "BadEnvironmentKeyIdInToken"
        case .badEnvironmentKeyInToken: return "BadEnvironmentKeyInToken"
        case .badPath: return "BadPath"
        case .methodNotAllowed: return "MethodNotAllowed"
        case .unregistered: return "Unregistered"
        case .expiredToken: return "ExpiredToken"
        case .payloadTooLarge: return "PayloadTooLarge"
        case .tooManyProviderTokenUpdates: return "TooManyProviderTokenUpdates"
        case .tooManyRequests: return "TooManyRequests"
        case .internalServerError: return "InternalServerError"
        case .serviceUnavailable: return "ServiceUnavailable"
        case .shutdown: return "Shutdown"
        case .other(let raw): return raw
        }
    }

    public var description: String { rawValue }

    public var isKnown: Bool { if case .other = self { return false } else { return true } }

    /// The HTTP status APNs answers this reason with (docs/specs/apns.md table); nil for `.other`.
    public var status: Int? {
        switch self {
        case .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority, .badTopic,
             .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken,
             .missingTopic, .payloadEmpty, .topicDisallowed:
            return 400
        case .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden, .invalidProviderToken,
             .missingProviderToken, .unrelatedKeyIdInToken, .badEnvironmentKeyIdInToken, .badEnvironmentKeyInToken:
            return 403
        case .badPath: return 404
        case .methodNotAllowed: return 405
        // One client library documents ExpiredToken as 400; the spec's table (and Apple) say 410.
        case .unregistered, .expiredToken: return 410
        case .payloadTooLarge: return 413
        case .tooManyProviderTokenUpdates, .tooManyRequests: return 429
        case .internalServerError: return 500
        case .serviceUnavailable, .shutdown: return 503
        case .other: return nil
        }
    }

    /// What a sender may do next (docs/specs/apns.md "Retry policy").
    public var retryability: Retryability { retryability(status: status) }

    /// As `retryability`, with the status actually received deciding for unknown reasons:
    /// an unknown reason on a 5xx is transient, on anything else it is not retried.
    public func retryability(status received: Int?) -> Retryability {
        switch self {
        case .internalServerError, .serviceUnavailable, .shutdown:
            return .withBackoff
        // IdleTimeout says the connection sat idle too long, not that the push is wrong:
        // the same push on a fresh connection goes through.
        case .idleTimeout:
            return .withBackoff
        // 429s: wait; TooManyProviderTokenUpdates must not mint yet another token.
        case .tooManyRequests, .tooManyProviderTokenUpdates:
            return .afterDelay
        case .expiredProviderToken:
            return .renewCredentialOnce
        case .other:
            if let s = received, s >= 500 { return .withBackoff }
            if received == 429 { return .afterDelay }
            return .never
        default:
            return .never
        }
    }

    /// The device token will never work again: remove it from the audience.
    public var prunesToken: Bool {
        switch self {
        case .unregistered, .badDeviceToken, .expiredToken: return true
        default: return false
        }
    }

    /// What the reason means and how to fix it, in one or two sentences.
    public var fix: String {
        switch self {
        case .badCollapseId: return "apns-collapse-id is longer than 64 bytes; shorten it (--collapse-id)."
        case .badDeviceToken: return "The device token is not a valid APNs token for this environment. Check it is the hex token from didRegisterForRemoteNotificationsWithDeviceToken, and that a development build's token goes to the sandbox (--sandbox) and a release build's to production."
        case .badExpirationDate: return "apns-expiration must be UNIX seconds (0 = deliver once); fix --expiration."
        case .badMessageId: return "apns-id must be a canonical lowercase UUID; fix --apns-id or omit it to have one generated."
        case .badPriority: return "apns-priority must be 10, 5 or 1 (background pushes: 5); fix --priority."
        case .badTopic: return "apns-topic is not a valid topic; use the app's bundle id (plus the suffix of its push type) via --topic."
        case .deviceTokenNotForTopic: return "The device token belongs to another app; send with that app's bundle id as --topic, or use this app's token."
        case .duplicateHeaders: return "A header was sent twice; send each apns-* header once."
        case .idleTimeout: return "The connection sat idle too long; retry on a new connection (done automatically)."
        case .invalidPushType: return "apns-push-type is not one APNs knows; use alert, background, voip, liveactivity … (--push-type)."
        case .missingDeviceToken: return "The request path carries no device token; pass --token."
        case .missingTopic: return "apns-topic is required with token authentication; pass --topic (or APNS_TOPIC) with the bundle id."
        case .payloadEmpty: return "The payload is empty; send a JSON object with an aps dictionary."
        case .topicDisallowed: return "Pushing to this topic is not allowed; check the bundle id and the key's capabilities in the developer account (with --cert: the topic must be one the certificate lists)."
        case .badCertificate: return "APNs does not accept the client certificate (not Apple-issued, expired or revoked); create a new push certificate in the developer account, or use a .p8 key (--key)."
        case .badCertificateEnvironment: return "The certificate is for the other environment; switch --sandbox/--production, or use the certificate made for this one."
        case .expiredProviderToken: return "The provider token is older than 60 minutes; a new one is minted and the push retried once (automatic). If it persists, check the machine's clock."
        case .forbidden: return "The key is not allowed to send this push (revoked key, missing capability); check the key in the Apple developer account."
        case .invalidProviderToken: return "The provider token was not accepted: check --key-id, --team-id and that the .p8 file is the key with that id and is not revoked."
        case .missingProviderToken: return "No provider token was sent; pass --key, --key-id and --team-id (or APNS_KEY_PATH, APNS_KEY_ID, APNS_TEAM_ID)."
        case .unrelatedKeyIdInToken: return "A different key than the connection's first one was used; use one key per connection."
        case .badEnvironmentKeyIdInToken, .badEnvironmentKeyInToken: return "The key is restricted to the other environment; switch --sandbox/--production or use a key for both."
        case .badPath: return "The request path is wrong; the URL must end in /3/device/<token> (check --url)."
        case .methodNotAllowed: return "APNs accepts POST only."
        case .unregistered: return "The app was uninstalled or the token is no longer valid for the topic; stop sending to it (see --prune-file). The timestamp says when it was last valid."
        case .expiredToken: return "The device token has expired; stop sending to it and wait for the app to register a new one."
        case .payloadTooLarge: return "The payload is larger than 4096 bytes (VoIP: 5120); shorten it."
        case .tooManyProviderTokenUpdates: return "Provider tokens were refreshed too often (more than once per 20 minutes); reuse one token. Retried after a delay without minting."
        case .tooManyRequests: return "Too many pushes to this one device token; slow down. Retried after a delay."
        case .internalServerError: return "APNs failed internally; retried with backoff."
        case .serviceUnavailable: return "APNs is unavailable; retried with backoff."
        case .shutdown: return "The APNs server is shutting down; retried on a new connection."
        case .other(let raw): return "APNs answered '\(raw)', a reason pushlab's table does not list; see Apple's documentation for it."
        }
    }
}
