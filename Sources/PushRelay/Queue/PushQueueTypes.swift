import Foundation

/// A push's id: `p_` + 26 characters (time-ordered, random tail). Assigned by the API.
public typealias PushID = String

/// Which APNs host a target goes to (docs/specs/apns.md "Hosts").
public enum APNsEnvironment: String, Sendable, Hashable, Codable, CaseIterable {
    case sandbox
    case production
}

/// One place a push goes to.
public struct PushTarget: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// An APNs device token (hex).
        case apnsToken = "apns"
        /// An FCM registration token or Firebase installation id.
        case fcmToken = "fcm"
        /// An FCM topic name (without `/topics/`).
        case fcmTopic = "topic"
        /// An FCM condition expression.
        case fcmCondition = "condition"
    }
    public var kind: Kind
    public var value: String
    /// APNs only: the host for this target; nil takes the app's configured environment.
    public var environment: APNsEnvironment?

    public init(kind: Kind, value: String, environment: APNsEnvironment? = nil) {
        self.kind = kind
        self.value = value
        self.environment = environment
    }

    public var isAPNs: Bool { kind == .apnsToken }
}

/// What the API hands to `PushQueue.enqueue`.
public struct PushSubmission: Sendable {
    public var id: PushID
    public var app: String
    /// What to send, opaque to the queue (the relay stores an encoded `RelayPushContent`).
    public var content: [UInt8]
    public var targets: [PushTarget]
    /// The client's `Idempotency-Key`, unique per app.
    public var idempotencyKey: String?
    /// A digest of the request the key came with: the same key with another request is a conflict.
    public var requestFingerprint: String?
    public var acceptedAt: Date

    public init(id: PushID, app: String, content: [UInt8], targets: [PushTarget], idempotencyKey: String? = nil,
                requestFingerprint: String? = nil, acceptedAt: Date) {
        self.id = id
        self.app = app
        self.content = content
        self.targets = targets
        self.idempotencyKey = idempotencyKey
        self.requestFingerprint = requestFingerprint
        self.acceptedAt = acceptedAt
    }
}

/// The answer to an enqueue: the push the targets are (or already were) queued under.
public struct EnqueueReceipt: Sendable, Hashable {
    public var pushID: PushID
    public var targetCount: Int
    public var acceptedAt: Date
    /// True when an earlier request with the same idempotency key queued this push.
    public var isReplay: Bool

    public init(pushID: PushID, targetCount: Int, acceptedAt: Date, isReplay: Bool) {
        self.pushID = pushID
        self.targetCount = targetCount
        self.acceptedAt = acceptedAt
        self.isReplay = isReplay
    }
}

/// One target handed to a worker.
public struct ClaimedTarget: Sendable {
    public var pushID: PushID
    /// The target's position in its push (0-based); with `pushID` it names the target.
    public var index: Int
    public var app: String
    public var target: PushTarget
    /// The push's content, as submitted.
    public var content: [UInt8]
    /// Attempts already made before this claim.
    public var attempts: Int
    /// The implementation's handle for this claim (SQLite: the row; Redis: the stream entry).
    public var receipt: String

    public init(pushID: PushID, index: Int, app: String, target: PushTarget, content: [UInt8], attempts: Int, receipt: String) {
        self.pushID = pushID
        self.index = index
        self.app = app
        self.target = target
        self.content = content
        self.attempts = attempts
        self.receipt = receipt
    }
}

/// A target's final result.
public struct TargetOutcome: Sendable, Hashable, Codable {
    public enum Status: String, Sendable, Hashable, Codable {
        /// APNs answered 200 / FCM returned a message name.
        case sent
        /// A final rejection, or retries ran out.
        case failed
    }
    public var status: Status
    /// The provider's HTTP status; nil when no answer came (transport error).
    public var httpStatus: Int?
    /// APNs reason or FCM error status (`BadDeviceToken`, `UNREGISTERED`); transport errors as text.
    public var reason: String?
    /// `apns-id` or the FCM message name.
    public var providerID: String?
    /// The provider called the token dead: it goes to the invalid-token feed.
    public var tokenInvalid: Bool
    /// Attempts made in all, this one included.
    public var attempts: Int
    public var finishedAt: Date

    public init(status: Status, httpStatus: Int? = nil, reason: String? = nil, providerID: String? = nil,
                tokenInvalid: Bool = false, attempts: Int, finishedAt: Date) {
        self.status = status
        self.httpStatus = httpStatus
        self.reason = reason
        self.providerID = providerID
        self.tokenInvalid = tokenInvalid
        self.attempts = attempts
        self.finishedAt = finishedAt
    }
}

public struct TargetCompletion: Sendable {
    public var claim: ClaimedTarget
    public var outcome: TargetOutcome
    public init(_ claim: ClaimedTarget, _ outcome: TargetOutcome) {
        self.claim = claim
        self.outcome = outcome
    }
}

public struct TargetRetry: Sendable {
    public var claim: ClaimedTarget
    public var attempts: Int
    public var lastError: String?
    public var notBefore: Date
    public init(_ claim: ClaimedTarget, attempts: Int, lastError: String?, notBefore: Date) {
        self.claim = claim
        self.attempts = attempts
        self.lastError = lastError
        self.notBefore = notBefore
    }
}

/// What `complete` did with a batch.
public struct CompletionReport: Sendable, Hashable {
    /// Results stored as the target's final one.
    public var recorded: Int
    /// Results for targets that already had one (sent twice: after a lease ran out or a crash).
    public var duplicates: Int
    /// Pushes whose last result this batch recorded: each push is in exactly one report, even
    /// when several workers or relay nodes finish its last targets at the same moment (so
    /// `push_finished` is announced once).
    public var finishedPushes: Set<PushID>
    public init(recorded: Int = 0, duplicates: Int = 0, finishedPushes: Set<PushID> = []) {
        self.recorded = recorded
        self.duplicates = duplicates
        self.finishedPushes = finishedPushes
    }
}

public struct QueueDepth: Sendable, Hashable, Codable {
    /// Not yet final and not claimed (ready or waiting for a retry).
    public var waiting: Int
    /// Claimed by a worker, not yet final.
    public var claimed: Int
    /// Final.
    public var finished: Int
    public var unfinished: Int { waiting + claimed }
    public init(waiting: Int, claimed: Int, finished: Int) {
        self.waiting = waiting
        self.claimed = claimed
        self.finished = finished
    }
}

/// One target of a push as `status(of:)` reports it.
public struct TargetState: Sendable, Hashable {
    public enum Phase: String, Sendable, Hashable, Codable {
        case waiting, claimed, sent, failed
    }
    public var index: Int
    public var target: PushTarget
    public var phase: Phase
    public var attempts: Int
    /// The last retryable error while waiting for another attempt.
    public var lastError: String?
    public var outcome: TargetOutcome?

    public init(index: Int, target: PushTarget, phase: Phase, attempts: Int, lastError: String?, outcome: TargetOutcome?) {
        self.index = index
        self.target = target
        self.phase = phase
        self.attempts = attempts
        self.lastError = lastError
        self.outcome = outcome
    }
}

public struct PushStatus: Sendable, Hashable {
    public var pushID: PushID
    public var app: String
    public var acceptedAt: Date
    public var targetCount: Int
    public var sent: Int
    public var failed: Int
    /// Filled only when asked for (`includeTargets`), in index order.
    public var targets: [TargetState]
    public var isFinished: Bool { sent + failed == targetCount }

    public init(pushID: PushID, app: String, acceptedAt: Date, targetCount: Int, sent: Int, failed: Int, targets: [TargetState]) {
        self.pushID = pushID
        self.app = app
        self.acceptedAt = acceptedAt
        self.targetCount = targetCount
        self.sent = sent
        self.failed = failed
        self.targets = targets
    }
}

/// A final result in an app's delivery log.
public struct DeliveryRecord: Sendable, Hashable {
    public var pushID: PushID
    public var index: Int
    public var target: PushTarget
    public var outcome: TargetOutcome
    public init(pushID: PushID, index: Int, target: PushTarget, outcome: TargetOutcome) {
        self.pushID = pushID
        self.index = index
        self.target = target
        self.outcome = outcome
    }
}

/// A token the provider called dead.
public struct InvalidToken: Sendable, Hashable {
    public var token: String
    public var kind: PushTarget.Kind
    public var reason: String
    public var pushID: PushID
    public var reportedAt: Date
    public init(token: String, kind: PushTarget.Kind, reason: String, pushID: PushID, reportedAt: Date) {
        self.token = token
        self.kind = kind
        self.reason = reason
        self.pushID = pushID
        self.reportedAt = reportedAt
    }
}

/// Why a queue operation failed. Every case says what to do.
public enum PushQueueError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The same idempotency key came with a different request.
    case idempotencyConflict(key: String, pushID: PushID)
    /// Not enough room: `unfinished` targets wait, `capacity` is the limit, `incoming` were asked for.
    case full(unfinished: Int, incoming: Int, capacity: Int)
    /// The backing store failed (disk, connection); `detail` names it.
    case storage(String)
    case closed

    public var description: String {
        switch self {
        case .idempotencyConflict(let key, let pushID):
            return "Idempotency-Key '\(key)' was already used for push \(pushID) with a different request; use a new key for a new push"
        case .full(let unfinished, let incoming, let capacity):
            return "queue full: \(unfinished) targets unfinished + \(incoming) new > capacity \(capacity); retry later or raise queue.capacity"
        case .storage(let detail):
            return "queue storage failed: \(detail)"
        case .closed:
            return "queue is closed"
        }
    }
}
