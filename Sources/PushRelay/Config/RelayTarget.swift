/// Where an app's pushes go.
public enum RelayTarget: String, Sendable, Hashable, CaseIterable {
    /// Apple's APNs hosts (sandbox or production per the app's environment).
    case apple
    /// Google's FCM HTTP v1 host.
    case google
    /// pushlab's gateway emulator, started inside the relay.
    case emulator
}
