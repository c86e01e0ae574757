import Foundation
import OfflineLab
import PushConsole
import PushCore
import PushDevice
import PushGateway
import PushHTTP
import OfflineLab
import PushMetrics

/// One console line per push the gateway judged (device tokens shortened, nothing secret).
struct PushLogLine: PushDeliverySink {
    func deliver(_ push: AcceptedPush) {
        let who = push.device?.name ?? "quick-start device"
        let delivery = push.deliveryID.map { " CIO-Delivery-ID \($0)" } ?? ""
        emit("\(ISO8601DateFormatter().string(from: push.receivedAt)) \(push.service.rawValue) accepted → \(who)\(delivery) (\(push.payload.count) bytes)")
    }
}
