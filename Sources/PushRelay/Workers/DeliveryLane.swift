import PushCore
import PushSend
import Synchronization

/// One app's clients and the budgets its sends take from, looked up once per send; it sends
/// one claimed target and says what the send came to (`SendAttempt`), leaving final or retry
/// to the recorder.
final class DeliveryLane: Sendable {
    let senders: AppSenders
    let budget: (any SendBudget)?
    /// Its Firebase project's FCM budget, one object for every app on that project.
    let fcmProjectBudget: (any SendBudget)?
    /// Where its APNs and its FCM sends run (`AppSenders.executor`).
    let apnsExecutor: any TaskExecutor
    let fcmExecutor: any TaskExecutor
    /// Sends waiting for a budget now (the state dump shows them: a send that waits for
    /// `rate_per_minute` is not stuck).
    private let budgetWaits = Atomic<Int>(0)
    var waitingForBudget: Int { budgetWaits.load(ordering: .relaxed) }

    init(senders: AppSenders, budget: (any SendBudget)?, fcmProjectBudget: (any SendBudget)?) {
        self.senders = senders
        self.budget = budget
        self.fcmProjectBudget = fcmProjectBudget
        apnsExecutor = senders.executor(forAPNs: true)
        fcmExecutor = senders.executor(forAPNs: false)
    }

    func executor(for target: PushTarget) -> any TaskExecutor { target.kind == .apnsToken ? apnsExecutor : fcmExecutor }

    /// Sends `claim`: its budgets first, then the app's client.
    func send(_ claim: ClaimedTarget, prepared: PreparedContentCache) async -> SendAttempt {
        budgetWaits.add(1, ordering: .relaxed)
        await budget?.take()
        if !claim.target.isAPNs { await fcmProjectBudget?.take() }
        budgetWaits.subtract(1, ordering: .relaxed)
        guard let content = prepared.content(for: claim) else {
            return .failed(reason: RelayFailure.badContent.rawValue, detail: "the queued content of push \(claim.pushID) cannot be read")
        }
        switch claim.target.kind {
        case .apnsToken: return await sendAPNs(claim, content: content)
        case .fcmToken, .fcmTopic, .fcmCondition: return await sendFCM(claim, content: content)
        }
    }

    private func sendAPNs(_ claim: ClaimedTarget, content: PreparedContentCache.Prepared) async -> SendAttempt {
        guard let sender = senders.apnsSender(for: claim.target.environment) else {
            return .failed(reason: RelayFailure.noAPNsCredentials.rawValue, detail: "app '\(claim.app)' has no apns section")
        }
        let result: APNsSendResult
        // The client and the prepared push are used where they are held (both in objects
        // shared by every send), not copied per target.
        switch content.apns {
        case .success(let push)?: result = await sender.client.send(push, to: claim.target.value, index: UInt64(claim.index))
        case .failure(let e)?: return .failed(reason: e.wouldBeRejectedAs?.rawValue ?? RelayFailure.preflightFailed.rawValue, detail: "\(e)")
        case nil: return .failed(reason: RelayFailure.noAPNsPayload.rawValue, detail: "push \(claim.pushID) has no APNs payload")
        }
        switch result.outcome {
        case .accepted(let a):
            return .sent(status: 200, providerID: a.apnsID, attempts: result.attempts)
        case .rejected(let r):
            return .rejected(status: r.status, reason: r.reasonName, retryable: r.retryability.isRetryable,
                             prune: r.reason?.prunesToken ?? false, attempts: result.attempts)
        case .failed(let e):
            return .rejected(status: nil, reason: result.report.reason ?? RelayFailure.transportError.rawValue, retryable: true, prune: false,
                             attempts: max(1, result.attempts), detail: e.description)
        case .notSent(let why, let reason):
            return .failed(reason: reason, detail: why, prune: reason == APNsReason.badDeviceToken.rawValue)
        }
    }

    private func sendFCM(_ claim: ClaimedTarget, content: PreparedContentCache.Prepared) async -> SendAttempt {
        guard let client = senders.fcmClient, let message = content.fcm else {
            return .failed(reason: RelayFailure.noFCMCredentials.rawValue, detail: "app '\(claim.app)' has no fcm section or the push no FCM message")
        }
        let target: FCMTarget = claim.target.kind == .fcmToken ? .token(claim.target.value)
            : claim.target.kind == .fcmTopic ? .topic(claim.target.value) : .condition(claim.target.value)
        let result = await client.send(message, to: target, index: UInt64(claim.index))
        switch result.outcome {
        case .accepted(let name):
            return .sent(status: 200, providerID: name, attempts: result.attempts)
        case .rejected(let e):
            return .rejected(status: e.httpStatus, reason: e.reasonName, retryable: e.retryability.isRetryable,
                             prune: e.prunesToken, attempts: result.attempts)
        case .failed(let e):
            return .rejected(status: nil, reason: result.report.reason ?? RelayFailure.transportError.rawValue, retryable: true, prune: false,
                             attempts: max(1, result.attempts), detail: e.description)
        case .notSent(let why, let reason):
            return .failed(reason: reason, detail: why)
        case .noAccessToken(let e):
            return .rejected(status: nil, reason: result.report.reason ?? RelayFailure.accessTokenError.rawValue, retryable: true, prune: false,
                             attempts: max(1, result.attempts), detail: e.description)
        }
    }
}

/// What one send came to, before the recorder decides between final and retry.
enum SendAttempt {
    case sent(status: Int, providerID: String, attempts: Int)
    case rejected(status: Int?, reason: String, retryable: Bool, prune: Bool, attempts: Int, detail: String? = nil)
    /// Final without a provider answer (bad content, no credentials, bad token shape).
    case failed(reason: String, detail: String, prune: Bool = false)
}
