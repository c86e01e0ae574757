import Foundation

/// The ordered catalog of every validation rule (style.md: pushy's mock server — one rule, one
/// id, one place). Order: JSON, APNs request, `aps`, Live Activity, Customer.io, FCM, simulator
/// files. `pushlab validate --rules` and docs/validation.md list it in this order.
public enum RuleCatalog {
    public static let all: [ValidationRule] = json + apnsRequest + aps + liveActivity + cio + fcm + simulator

    private static let byID: [String: ValidationRule] = Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0) })

    public static func rule(_ id: String) -> ValidationRule? { byID[id] }

    // MARK: JSON

    public static let jsonSyntax = ValidationRule("json.syntax", .error, .apns,
        "The payload must be valid JSON (RFC 8259).",
        fix: "fix the syntax at the reported line and column")
    public static let jsonComments = ValidationRule("json.comments", .error, .apns,
        "Comments (`//`, `/* */`) are not JSON; vendor doc samples carry them.",
        fix: "delete the comment before sending")
    public static let jsonEncoding = ValidationRule("json.encoding", .error, .apns,
        "The payload must be UTF-8 text: no invalid byte sequences, binary data or byte order mark.",
        fix: "save the file as UTF-8 (without BOM)")
    public static let jsonDepth = ValidationRule("json.depth", .error, .lint,
        "Nesting deeper than 512 levels is refused.",
        fix: "flatten the structure")
    public static let jsonDuplicateKey = ValidationRule("json.duplicate-key", .warning, .lint,
        "A key appears twice in one object; which value wins depends on the receiver's parser.",
        fix: "keep one of the two members")
    public static let jsonRootObject = ValidationRule("json.root.object", .error, .apns,
        "The payload must be a JSON object.",
        fix: "wrap the content in { … } with an \"aps\" dictionary")

    static let json = [jsonSyntax, jsonComments, jsonEncoding, jsonDepth, jsonDuplicateKey, jsonRootObject]

    // MARK: APNs request: size, headers, push type, token

    public static let apnsPayloadEmpty = ValidationRule("apns.payload.empty", .error, .apns,
        "The request body is empty.",
        fix: "send a JSON payload with an \"aps\" dictionary", apnsRule: .payloadNotEmpty)
    public static let apnsSizeMax = ValidationRule("apns.size.max", .error, .apns,
        "The minified payload must be at most 4096 bytes (VoIP: 5120).",
        fix: "shorten the text or move data out of the payload (fetch it in the app or the NSE)",
        apnsRule: .payloadWithinLimit)
    public static let apnsPushTypeUnknown = ValidationRule("apns.push-type.unknown", .error, .apns,
        "apns-push-type must be one of alert, background, location, voip, complication, fileprovider, mdm, liveactivity, pushtotalk, widgets, controls.",
        fix: "use a documented push type", apnsRule: .pushTypeIsKnown)
    public static let apnsPushTypeMismatch = ValidationRule("apns.push-type.mismatch", .warning, .lint,
        "The push type does not match the payload (e.g. an alert push with nothing to show).",
        fix: "set apns-push-type to what the payload is: alert when it shows something, background for content-available only")
    public static let apnsPriorityValue = ValidationRule("apns.priority.value", .error, .apns,
        "apns-priority must be 10, 5 or 1.",
        fix: "use 10 (immediate), 5 (power-considerate) or 1 (lowest)", apnsRule: .priorityIsKnown)
    public static let apnsBackgroundPriority = ValidationRule("apns.background.priority", .error, .ios,
        "A background push (content-available only) must be sent with apns-priority 5.",
        fix: "set apns-priority: 5")
    public static let apnsBackgroundAlert = ValidationRule("apns.background.alert", .error, .ios,
        "A background push must not contain alert, badge or sound.",
        fix: "remove alert/badge/sound, or send it as an alert push")
    public static let apnsBackgroundContentAvailable = ValidationRule("apns.background.content-available", .error, .ios,
        "A background push needs \"content-available\": 1 in aps, or the app is never woken.",
        fix: "add \"content-available\": 1 to aps")
    public static let apnsTopicSuffix = ValidationRule("apns.topic.suffix", .error, .apns,
        "apns-topic must carry the suffix of its push type (.voip, .complication, .push-type.liveactivity …) and none for alert/background.",
        fix: "append the suffix for the push type to the bundle id", apnsRule: .topicFitsPushType)
    public static let apnsCollapseIDSize = ValidationRule("apns.collapse-id.size", .error, .apns,
        "apns-collapse-id must be at most 64 bytes.",
        fix: "use a shorter collapse id", apnsRule: .collapseIDAtMost64Bytes)
    public static let apnsExpirationValue = ValidationRule("apns.expiration.value", .error, .apns,
        "apns-expiration must be UNIX seconds (0 = deliver once, do not store).",
        fix: "use a whole number of seconds since 1970", apnsRule: .expirationIsUNIXSeconds)
    public static let apnsIDFormat = ValidationRule("apns.id.format", .error, .apns,
        "apns-id must be a canonical UUID (8-4-4-4-12 hex digits).",
        fix: "omit apns-id (APNs generates one) or send a UUID", apnsRule: .apnsIDIsCanonicalUUID)
    public static let apnsTokenFCM = ValidationRule("apns.token.fcm-token", .error, .apns,
        "An FCM registration token was given to APNs.",
        fix: "send this token through FCM, or use the hex APNs device token", apnsRule: .deviceTokenIsHex)
    public static let apnsTokenShape = ValidationRule("apns.token.shape", .error, .apns,
        "An APNs device token is hex, an even number of digits, at least 64.",
        fix: "send the device token bytes as hex", apnsRule: .deviceTokenIsHex)

    static let apnsRequest = [apnsPayloadEmpty, apnsSizeMax, apnsPushTypeUnknown, apnsPushTypeMismatch, apnsPriorityValue,
                              apnsBackgroundPriority, apnsBackgroundAlert, apnsBackgroundContentAvailable, apnsTopicSuffix,
                              apnsCollapseIDSize, apnsExpirationValue, apnsIDFormat, apnsTokenFCM, apnsTokenShape]

    // MARK: the aps dictionary

    public static let apsMissing = ValidationRule("aps.missing", .error, .ios,
        "An APNs payload needs an \"aps\" dictionary; without it iOS shows nothing and wakes nothing.",
        fix: "add \"aps\": {\"alert\": {\"title\": …, \"body\": …}}")
    public static let apsType = ValidationRule("aps.type", .error, .ios,
        "\"aps\" must be an object.",
        fix: "make aps a dictionary: \"aps\": {…}")
    public static let apsUnknownKey = ValidationRule("aps.unknown-key", .warning, .ios,
        "A key in aps that Apple does not define is ignored (custom keys belong beside aps).",
        fix: "fix the spelling, or move the key to the top level beside aps")
    public static let apsAlertType = ValidationRule("aps.alert.type", .error, .ios,
        "aps.alert must be a string or an object.",
        fix: "use \"alert\": \"text\" or \"alert\": {\"title\": …, \"body\": …}")
    public static let apsAlertFieldType = ValidationRule("aps.alert.field.type", .error, .ios,
        "alert title, subtitle, body, launch-image and *-loc-key must be strings; *-loc-args arrays of strings.",
        fix: "quote the value as a string")
    public static let apsAlertUnknownKey = ValidationRule("aps.alert.unknown-key", .warning, .ios,
        "A key in aps.alert that Apple does not define is ignored.",
        fix: "use title, subtitle, body, launch-image, title-loc-key, title-loc-args, subtitle-loc-key, subtitle-loc-args, loc-key, loc-args")
    public static let apsAlertEmpty = ValidationRule("aps.alert.empty", .warning, .ios,
        "The alert has no title, subtitle or body, so nothing is shown.",
        fix: "add a title or body")
    public static let apsBadgeType = ValidationRule("aps.badge.type", .error, .ios,
        "aps.badge must be a whole number ≥ 0 (0 clears the badge).",
        fix: "write the badge as a number without quotes, e.g. \"badge\": 3")
    public static let apsSoundType = ValidationRule("aps.sound.type", .error, .ios,
        "aps.sound must be a string or an object {critical: 0|1, name: string, volume: 0…1}.",
        fix: "use \"sound\": \"default\" or a sound dictionary with a name")
    public static let apsStringType = ValidationRule("aps.string.type", .error, .ios,
        "thread-id, category, target-content-id and filter-criteria must be strings.",
        fix: "quote the value as a string")
    public static let apsContentAvailableType = ValidationRule("aps.content-available.type", .error, .ios,
        "content-available must be the number 1 (not true or \"1\").",
        fix: "write \"content-available\": 1")
    public static let apsMutableContentType = ValidationRule("aps.mutable-content.type", .error, .ios,
        "mutable-content must be the number 1 (not true or \"1\"); otherwise the Notification Service Extension may not run.",
        fix: "write \"mutable-content\": 1")
    public static let apsFlagValue = ValidationRule("aps.flag.value", .warning, .ios,
        "content-available and mutable-content only mean something as 1; 0 or another number is a likely mistake.",
        fix: "use 1, or remove the key")
    public static let apsNumberLiteral = ValidationRule("aps.number.literal", .warning, .lint,
        "A whole-number field is written with a fraction or exponent (1.0, 1e0); Apple documents integers.",
        fix: "write the integer, e.g. 1")
    public static let apsInterruptionLevel = ValidationRule("aps.interruption-level.value", .error, .ios,
        "interruption-level must be passive, active, time-sensitive or critical.",
        fix: "use one of passive, active, time-sensitive, critical")
    public static let apsRelevanceScore = ValidationRule("aps.relevance-score.range", .error, .ios,
        "relevance-score must be a number from 0 to 1.",
        fix: "use a number between 0 and 1")
    public static let apsDateType = ValidationRule("aps.date.type", .error, .ios,
        "timestamp, stale-date and dismissal-date must be whole UNIX seconds.",
        fix: "write seconds since 1970 as an integer")

    static let aps = [apsMissing, apsType, apsUnknownKey, apsAlertType, apsAlertFieldType, apsAlertUnknownKey, apsAlertEmpty,
                      apsBadgeType, apsSoundType, apsStringType, apsContentAvailableType, apsMutableContentType,
                      apsFlagValue, apsNumberLiteral, apsInterruptionLevel, apsRelevanceScore, apsDateType]
}
