/// Which push service a send went to.
public enum PushProvider: String, Sendable, Hashable, Codable {
    case apns, fcm
}
