import Foundation
import PushCore
import PushGateway

/// Feeds every push the gateway emulator records into the console's log
/// (`GatewayConfiguration.recordObserver`).
public struct GatewayLogFeed: PushRecordObserver {
    public let log: any PushLogFeed

    public init(log: any PushLogFeed) { self.log = log }

    public func recorded(_ push: RecordedPush) {
        let record = push.record
        log.append(LoggedPush(recorded: push, receivedAt: record.receivedAt, source: .gateway,
                              platform: record.service == .apns ? .apns : .fcm,
                              app: record.topic ?? push.rawHeaders?[APNsHeader.topic] ?? record.headers[APNsHeader.topic], target: record.token,
                              device: record.device, pushType: record.pushType, status: record.status, reason: record.reason,
                              messageID: record.messageID, uniqueID: record.uniqueID, deliveryID: record.deliveryID))
    }
}
