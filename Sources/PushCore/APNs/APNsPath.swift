/// The path of an APNs push request (docs/specs/apns.md "Request"): `POST /3/device/<token>`, on
/// the push hosts. The channel API's paths are `BroadcastChannelAPI`'s.
public enum APNsPath {
    /// Everything before the device token.
    public static let devicePrefix = "/3/device/"
    /// The emulator's route: the token is the path's one parameter.
    public static let deviceRoute = devicePrefix + "{token}"

    /// The path a push to `token` goes to.
    public static func device(_ token: String) -> String { devicePrefix + token }
}
