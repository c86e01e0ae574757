import Foundation
import PushDevice
import PushGateway

/// The lab's delivery sink: pushes for iPhones go to the `DeviceFleet`, FCM messages for Android
/// devices to the `AndroidFleet`.
struct LabDeliverySink: PushDeliverySink {
    let iphones: DeviceFleet
    let androids: AndroidFleet
    func deliver(_ push: AcceptedPush) { iphones.deliver(push) }
    func deliverToAndroid(_ push: AcceptedPush) { androids.deliver(push) }
}
