import Foundation
import PushCore
import PushRelay

/// Feeds the relay's pushes into the console's log (`pushlab relay --console`): one row when a
/// push is queued (`202`, the relay's push id, how many targets) and one per target when it gets
/// its final result (the provider's status and reason, its apns-id or FCM name; a send that got
/// no answer at all is status 0 with the transport error as its reason). Search finds every row
/// of a push by its relay push id.
public struct RelayLogFeed: RelayObserver {
    public let log: any PushLogFeed

    public init(log: any PushLogFeed) { self.log = log }

    public func accepted(_ push: RelayAcceptedPush) {
        let shown = push.targets.count == 1 ? push.targets[0] : nil
        // The row is labelled by the payload it shows (the one its findings are about); a push to
        // APNs and FCM targets says so beside the count.
        let mixed = push.targets.contains { $0.kind == .apnsToken } && push.targets.contains { $0.kind != .apnsToken }
        var row = LoggedPush(receivedAt: push.acceptedAt, source: .relay, platform: Self.showsAPNsPayload(push.content, target: shown) ? .apns : .fcm,
                             app: push.app, target: shown?.value,
                             device: "\(push.targets.count) target\(push.targets.count == 1 ? "" : "s")\(mixed ? " (APNs + FCM)" : "")",
                             pushType: push.content.apns?.pushType?.rawValue, status: 202, reason: nil, messageID: push.pushID.rawValue,
                             uniqueID: nil, deliveryID: Self.deliveryID(push.content), headers: Self.headers(push.content, app: push.app),
                             payload: Self.payload(push.content, target: shown))
        row.relayPushID = push.pushID.rawValue
        log.append(row)
    }

    public func finished(_ result: RelayTargetResult) {
        let apns = result.target.kind == .apnsToken
        let sent = result.outcome.status == .sent
        var row = LoggedPush(receivedAt: result.outcome.finishedAt, source: .relay, platform: apns ? .apns : .fcm, app: result.app,
                             target: result.target.value, device: nil,
                             pushType: apns ? result.content?.apns?.pushType?.rawValue : nil,
                             status: result.outcome.httpStatus ?? (sent ? 200 : 0), reason: sent ? nil : result.outcome.reason,
                             messageID: result.outcome.providerID ?? "\(result.pushID)#\(result.index)", uniqueID: nil,
                             deliveryID: result.content.flatMap(Self.deliveryID),
                             headers: result.content.map { Self.headers($0, app: result.app) } ?? [:],
                             payload: result.content.map { Self.payload($0, target: result.target) } ?? "")
        row.relayPushID = result.pushID.rawValue
        log.append(row)
    }

    /// The APNs options as the relay sends them, for the detail's header list.
    static func headers(_ content: RelayPushContent, app: String) -> [String: String] {
        var h = ["relay-app": app]
        if let a = content.apns {
            h[APNsHeader.topic] = a.topic
            h[APNsHeader.pushType] = a.pushType?.rawValue
            h[APNsHeader.priority] = a.priority.map(String.init)
            h[APNsHeader.expiration] = a.expiration.map(String.init)
            h[APNsHeader.collapseID] = a.collapseID
        }
        return h
    }

    /// The APNs payload for an APNs target; for the others the FCM v1 request as it was sent, with
    /// its target (the console shortens a token before it serves the payload).
    static func payload(_ content: RelayPushContent, target: PushTarget?) -> String {
        if showsAPNsPayload(content, target: target), let a = content.apns { return a.payload }
        guard let f = content.fcm else { return content.apns?.payload ?? "" }
        guard let target, target.kind != .apnsToken,
              case .object(var message)? = try? JSONDocument.parse(Array(f.message.utf8)).root else { return #"{"message":\#(f.message)}"# }
        let field = target.kind == .fcmToken ? "token" : target.kind == .fcmTopic ? "topic" : "condition"
        message[field] = .string(target.value)
        return #"{"message":\#(String(decoding: JSONValue.object(message).minifiedBytes(), as: UTF8.self))}"#
    }

    /// Whether `payload` shows the APNs payload: for an APNs target, or for a push of several
    /// targets that carries one.
    static func showsAPNsPayload(_ content: RelayPushContent, target: PushTarget?) -> Bool {
        content.apns != nil && (target?.kind == .apnsToken || target == nil)
    }

    /// `CIO-Delivery-ID` from the APNs payload or the FCM message's data.
    static func deliveryID(_ content: RelayPushContent) -> String? {
        if let text = content.apns?.payload, case .object(let top)? = try? JSONDocument.parse(Array(text.utf8)).root,
           let id = top[CIOPush.deliveryIDKey]?.stringValue {
            return id
        }
        if let text = content.fcm?.message, let message = try? JSONDocument.parse(Array(text.utf8)).root,
           let id = message["data"]?[CIOPush.deliveryIDKey]?.stringValue {
            return id
        }
        return nil
    }
}
