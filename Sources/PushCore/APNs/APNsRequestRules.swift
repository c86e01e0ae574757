
/// The order the gateway emulator runs `APNsRequestRule`s in, and the facts they share.
public enum APNsRequestRules {
    /// The checks that need nothing but the request, in the order APNs is observed to apply
    /// them. Authorization and the device registry come after these; then `topicChecks` and
    /// `payloadChecks`.
    public static let headerChecks: [APNsRequestRule] = [
        .methodIsPOST, .deviceTokenPresent, .deviceTokenIsHex, .noDuplicateHeaders, .apnsIDIsCanonicalUUID,
        .expirationIsUNIXSeconds, .priorityIsKnown, .pushTypeIsKnown, .topicPresent, .topicIsBundleID,
        .collapseIDAtMost64Bytes,
    ]
    /// After the topic is known to be allowed for the team.
    public static let topicChecks: [APNsRequestRule] = [.topicFitsPushType]
    /// After the device token was found for the topic.
    public static let payloadChecks: [APNsRequestRule] = [.payloadNotEmpty, .payloadWithinLimit]

    /// docs/specs/apns.md "Request": `apns-collapse-id` is at most 64 bytes.
    public static let maximumCollapseIDBytes = 64

    /// The first of `rules` that `request` breaks.
    public static func firstViolation(of rules: [APNsRequestRule], in request: APNsRequest) -> APNsRequestRule? {
        for rule in rules where rule.isViolated(by: request) { return rule }
        return nil
    }

    /// `apns-expiration`: whole UNIX seconds, ASCII digits only (no sign), fitting 64 bits.
    public static func isUNIXSeconds(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } && UInt64(value) != nil
    }

    /// `apns-topic`: letters, digits, '.', '-' (and '_', which some old bundle ids carry).
    public static func isBundleID(_ topic: String) -> Bool {
        // Over the contiguous bytes when the string has them (the gateway asks this on every
        // request; the UTF-8 view's iterator cost more than the test).
        @inline(__always) func allowed(_ c: UInt8) -> Bool {
            (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 46 || c == 45 || c == 95
        }
        return topic.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(allowed) } ?? topic.utf8.allSatisfy(allowed)
    }

    /// The body pushlab sends for a payload that parses: its minified form (no whitespace, keys
    /// and duplicates in source order, numbers as written; `JSONSerializer.swift`). The sender
    /// sends these bytes and the validator measures them, so `pushlab validate`'s "N/4096 bytes"
    /// is the size of the body APNs receives (docs/specs/apns.md "Request": the limit applies
    /// to the payload as sent). A payload that does not parse goes as written (`--no-validate`).
    public static func bodyAsSent(_ payload: JSONValue) -> [UInt8] { payload.minifiedBytes() }
    /// `bodyAsSent(payload).count`, without building it.
    public static func bodySizeAsSent(_ payload: JSONValue) -> Int { payload.minifiedByteCount }
    /// How `bodyAsSent` shapes the payload, for reports that show a size ("3943/4096 bytes minified").
    public static let bodyFormAsSent = "minified"

    /// A payload of `byteCount` bytes is over the limit for `pushType`.
    public static func isTooLarge(byteCount: Int, pushType: APNsPushType) -> Bool { byteCount > pushType.maximumPayloadBytes }
}
