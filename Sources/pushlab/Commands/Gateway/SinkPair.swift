import Foundation
import OfflineLab
import PushConsole
import PushGateway
import OfflineLab
import PushMetrics

/// Hands each accepted push to the console log and to the virtual iPhones' Live Activities.
struct SinkPair: PushDeliverySink {
    let first: (any PushDeliverySink)?
    let second: any PushDeliverySink
    func deliver(_ push: AcceptedPush) {
        first?.deliver(push)
        second.deliver(push)
    }
    func deliverToAndroid(_ push: AcceptedPush) {
        first?.deliverToAndroid(push)
        second.deliverToAndroid(push)
    }
    func wantsPush(device: EmulatedDevice?, token: String?) -> Bool {
        first?.wantsPush(device: device, token: token) == true || second.wantsPush(device: device, token: token)
    }
}
