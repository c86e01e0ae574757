import PushCore
import PushSend
import Synchronization

/// Each push's content decoded and prepared once, not once per target.
final class PreparedContentCache: Sendable {
    struct Prepared: Sendable {
        var apns: Result<PreparedAPNsPush, APNsPreflightError>?
        var fcm: PreparedFCMMessage?
    }
    private let cache = Mutex<[PushID: Prepared]>([:])
    private let limit = 256

    func content(for claim: ClaimedTarget) -> Prepared? {
        if let hit = cache.withLock({ $0[claim.pushID] }) { return hit }
        guard let content = RelayPushContent.decode(claim.content) else { return nil }
        var prepared = Prepared()
        if let apns = content.apns {
            let options = APNsPushOptions(topic: apns.topic, pushType: apns.pushType, priority: apns.priority,
                                          expiration: apns.expiration, collapseID: apns.collapseID)
            do {
                prepared.apns = .success(try PreparedAPNsPush(payload: Array(apns.payload.utf8), options: options))
            } catch {
                prepared.apns = .failure(error)
            }
        }
        if let fcm = content.fcm, let document = try? JSONDocument.parse(Array(fcm.message.utf8)), case .object(let members) = document.root {
            prepared.fcm = try? PreparedFCMMessage(members: members, validateOnly: false)
        }
        cache.withLock { c in
            if c.count >= limit { c.removeAll(keepingCapacity: true) }
            c[claim.pushID] = prepared
        }
        return prepared
    }
}
