import Foundation
import PushDevice
import PushGateway

/// The lab's delivery sink: pushes for iPhones go to the `DeviceFleet`, FCM messages for Android
/// devices to the `AndroidFleet`; pushes for a Retainza iPhone to the `RetainzaFleet`.
struct LabDeliverySink: PushDeliverySink {
    let iphones: DeviceFleet
    let androids: AndroidFleet
    var retainza: RetainzaFleet? = nil
    func deliver(_ push: AcceptedPush) {
        if retainza?.deliver(push) == true { return }
        iphones.deliver(push)
    }
    func deliverToAndroid(_ push: AcceptedPush) { androids.deliver(push) }
}
