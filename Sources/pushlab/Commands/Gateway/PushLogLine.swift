import Foundation
import OfflineLab
import PushConsole
import PushCore
import PushDevice
import PushGateway
import PushHTTP
import PushMetrics

/// One console line per push the gateway judged (device tokens shortened, nothing secret).
struct PushLogLine: PushDeliverySink {
    func deliver(_ push: AcceptedPush) {
        let who = push.device?.name ?? "quick-start device"
        let delivery = push.deliveryID.map { " CIO-Delivery-ID \($0)" } ?? ""
        // Written by hand: an ISO8601DateFormatter per line set up ICU's formatter each time,
        // 70% of an unquiet `serve`'s CPU (about 100 µs a push).
        emit("\(WholeSecondISO8601.string(push.receivedAt)) \(push.service.rawValue) accepted → \(who)\(delivery) (\(push.payload.count) bytes)")
    }
}
