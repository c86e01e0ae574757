import PushCore

/// Where the emulator started by `pushlab relay` listens (targets `emulator`), and the CA its
/// certificate chains to.
public struct EmulatorEndpoints: Sendable, Hashable {
    public var apnsURL: String
    public var fcmURL: String
    public var tokenURL: String
    public var caFile: String
    public init(apnsURL: String, fcmURL: String, tokenURL: String, caFile: String) {
        self.apnsURL = apnsURL
        self.fcmURL = fcmURL
        self.tokenURL = tokenURL
        self.caFile = caFile
    }

    /// A second APNs host playing production (nil: `apnsURL` serves both environments).
    public var apnsProductionURL: String?

    func apnsURL(for environment: APNsEnvironment) -> String {
        environment == .production ? apnsProductionURL ?? apnsURL : apnsURL
    }
}
