/// The paths of FCM HTTP v1 and of the OAuth 2.0 token endpoint a service account signs in at
/// (docs/specs/fcm.md "Send" and "Access token"), relative to their hosts.
public enum FCMPath {
    /// The token endpoint: Google's (`https://oauth2.googleapis.com/token`, a service account's
    /// `token_uri`) and the emulator's, which serves the same exchange.
    public static let oauthToken = "/token"
    /// The emulator's send route: the project id is the path's one parameter.
    public static let sendRoute = send(project: "{project}")

    /// `POST` a message for `project` here.
    public static func send(project: String) -> String { "/v1/projects/\(project)/messages:send" }
}
