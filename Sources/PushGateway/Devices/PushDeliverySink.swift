import Foundation
import PushCore
import PushHTTP

/// Where accepted pushes go: the device emulator, a test, or nowhere.
public protocol PushDeliverySink: Sendable {
    func deliver(_ push: AcceptedPush)
    /// An FCM message the gateway accepted for a device registered as `android`; its payload
    /// is the FCM send request. Sinks that emulate only iPhones ignore it (the default).
    func deliverToAndroid(_ push: AcceptedPush)
    /// Whether `deliver` would use an iPhone push for `device` (nil: the quick-start device)
    /// addressed to `token` (nil: the device's own token). The FCM route builds a message's APNs
    /// payload only for a sink that wants it. Default: every push.
    func wantsPush(device: EmulatedDevice?, token: String?) -> Bool
}

extension PushDeliverySink {
    public func deliverToAndroid(_ push: AcceptedPush) {}
    public func wantsPush(device: EmulatedDevice?, token: String?) -> Bool { true }
}
