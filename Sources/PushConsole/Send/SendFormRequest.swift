/// What the console's send form posts to `POST /console/api/send`.
public struct SendFormRequest: Sendable, Decodable {
    public var platform: String
    /// Which of the console's senders (`ConsoleSender.Target.id`); absent: `lab`.
    public var target: String?
    /// APNs only: the device token (FCM messages name their target inside `message`).
    public var token: String?
    public var topic: String?
    public var pushType: String?
    public var priority: Int?
    /// The raw JSON: an APNs payload, or an FCM v1 request `{"message": …}`.
    public var payload: String
}
