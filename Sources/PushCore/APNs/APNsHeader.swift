/// The header names of an APNs provider request and its answer (docs/specs/apns.md "Request",
/// "Response"), lowercase as HTTP/2 sends them (RFC 9113 §8.2.1). The one spelling the sender,
/// the gateway emulator, the relay, the console and the validator use; the channel API's own
/// headers are `BroadcastChannelAPI.channelIDHeader` and `requestIDHeader`.
public enum APNsHeader {
    /// `bearer <provider token>` (token authentication); absent with a client certificate.
    public static let authorization = "authorization"
    /// The request's UUID; APNs echoes it, or makes one up, in the answer's `apns-id`.
    public static let id = "apns-id"
    /// The answer's own id (development environment only), for Apple's delivery log.
    public static let uniqueID = "apns-unique-id"
    /// The bundle id plus the push type's suffix.
    public static let topic = "apns-topic"
    /// `APNsPushType`'s raw value.
    public static let pushType = "apns-push-type"
    /// `APNsPriority`'s header value: 10, 5 or 1.
    public static let priority = "apns-priority"
    /// UNIX seconds after which APNs stops trying (0: deliver once).
    public static let expiration = "apns-expiration"
    /// Pushes with the same id replace each other on the device (at most 64 bytes).
    public static let collapseID = "apns-collapse-id"
}
