import PushCore
import PushHTTP
import PushSend

/// Each push's content decoded and prepared once, not once per target.
final class PreparedContentCache: Sendable {
    /// A class: handing it to each of a push's sends costs one reference, not a copy of the
    /// prepared requests.
    final class Prepared: Sendable {
        let apns: Result<PreparedAPNsPush, APNsPreflightError>?
        let fcm: PreparedFCMMessage?
        init(apns: Result<PreparedAPNsPush, APNsPreflightError>?, fcm: PreparedFCMMessage?) {
            self.apns = apns
            self.fcm = fcm
        }
    }
    private struct Entries {
        var byPush: [PushID: Prepared] = [:]
        /// The last push looked up: consecutive targets mostly belong to one push, and comparing
        /// its id costs less than hashing it.
        var last: (id: PushID, prepared: Prepared)?
    }
    private let cache = SanitizerVisibleMutex(Entries())
    private let limit = 256

    func content(for claim: ClaimedTarget) -> Prepared? {
        let hit: Prepared? = cache.withLock { c in
            if let last = c.last, last.id == claim.pushID { return last.prepared }
            guard let hit = c.byPush[claim.pushID] else { return nil }
            c.last = (claim.pushID, hit)
            return hit
        }
        if let hit { return hit }
        guard let content = RelayPushContent.decode(claim.content) else { return nil }
        var apnsPush: Result<PreparedAPNsPush, APNsPreflightError>?
        if let apns = content.apns {
            let options = APNsPushOptions(topic: apns.topic, pushType: apns.pushType, priority: apns.priority,
                                          expiration: apns.expiration, collapseID: apns.collapseID, apnsID: apns.apnsID,
                                          onlyGivenHeaders: apns.onlyGivenHeaders ?? false)
            do {
                apnsPush = .success(try PreparedAPNsPush(payload: Array(apns.payload.utf8), options: options))
            } catch {
                apnsPush = .failure(error)
            }
        }
        var fcmMessage: PreparedFCMMessage?
        if let fcm = content.fcm, let document = try? JSONDocument.parse(Array(fcm.message.utf8)), case .object(let members) = document.root {
            fcmMessage = try? PreparedFCMMessage(members: members, validateOnly: false)
        }
        let prepared = Prepared(apns: apnsPush, fcm: fcmMessage)
        cache.withLock { c in
            if c.byPush.count >= limit { c.byPush.removeAll(keepingCapacity: true) }
            c.byPush[claim.pushID] = prepared
            c.last = (claim.pushID, prepared)
        }
        return prepared
    }
}
