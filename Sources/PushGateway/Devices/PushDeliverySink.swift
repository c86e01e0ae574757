import Foundation
import PushCore
import PushHTTP

/// Where accepted pushes go: the device emulator, a test, or nowhere.
public protocol PushDeliverySink: Sendable {
    func deliver(_ push: AcceptedPush)
    /// An FCM message the gateway accepted for a device registered as `android`; its payload
    /// is the FCM send request. Sinks that emulate only iPhones ignore it (the default).
    func deliverToAndroid(_ push: AcceptedPush)
}

extension PushDeliverySink {
    public func deliverToAndroid(_ push: AcceptedPush) {}
}
