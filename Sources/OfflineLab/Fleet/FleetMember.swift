import Foundation
import PushDevice
import PushGateway

/// One emulated iPhone app: its profile and its App Group container directory.
public struct FleetMember: Sendable {
    public var profile: AppProfile
    public var container: URL
    public init(profile: AppProfile, container: URL) {
        self.profile = profile
        self.container = container
    }
}

/// What happened on a device to one accepted push.
public struct FleetDelivery: Sendable {
    public var push: AcceptedPush
    public var deviceName: String
    public var report: NSERunReport
}
