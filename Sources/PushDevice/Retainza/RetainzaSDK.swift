import Foundation
import PushCore
import PushHTTP

/// The Retainza iOS SDK as pushlab emulates it (docs/specs/retainza.md): identify and track
/// through the offline queue, push registration and acks never queued, consent and opt-out in
/// memory only, sessions driven by the app. Time comes from `clock`; nothing here sleeps — the
/// host calls `retryIfDue()` when its clock moves (the phone, the simulation, the tests).
public actor RetainzaSDK {
    public nonisolated let profile: RetainzaAppProfile
    private let transport: any HTTPTransport
    private let clock: any TimeSource
    private let storage: any RetainzaStorage
    private let userProvider: @Sendable () -> String?
    private var baseURL: String

    public nonisolated let installID: String
    private var queue: RetainzaOfflineQueue
    private var failedFlushes = 0
    public private(set) var nextRetryAt: Date?
    private var identifiedUserID: String?
    /// Not persisted (§7): every launch starts without consent and without opt-out.
    public private(set) var consent: (analytics: Bool, marketing: Bool)?
    public private(set) var optedOut = false
    public private(set) var counters = RetainzaCounters()
    public private(set) var log: [RetainzaLogLine] = []
    /// The `event` of each tracked call the queue's cap dropped, oldest first.
    public private(set) var eventsDroppedByCap: [String] = []

    public static let sdkVersion = "1.0.0"

    /// `Retainza.start(with:)`: throws `.configuration` for an `sk_` key or a base URL without `/v1`.
    public init(profile: RetainzaAppProfile, storage: any RetainzaStorage, transport: any HTTPTransport,
                clock: any TimeSource, identifiers: any IdentifierSource = SystemIdentifierSource(),
                userProvider: @escaping @Sendable () -> String?) throws(RetainzaConfigurationError) {
        if let error = RetainzaConfigurationError.check(publicKey: profile.publicKey, baseURL: profile.baseURL) { throw error }
        self.profile = profile
        self.transport = transport
        self.clock = clock
        self.storage = storage
        self.userProvider = userProvider
        var url = profile.baseURL
        // A stored override redirects traffic only where runtime base URLs are allowed (§2).
        if profile.allowRuntimeBaseURL, let stored = storage.value(.baseURL)?.stringValue,
           RetainzaConfigurationError.check(publicKey: profile.publicKey, baseURL: stored) == nil {
            url = stored
        }
        while url.hasSuffix("/") { url.removeLast() }
        baseURL = url
        // §3: the install id describes the device and survives reset(); memory-only storage
        // loses it with the process.
        if let stored = storage.value(.install)?.stringValue {
            installID = stored
        } else {
            installID = identifiers.uuid().uuidString.lowercased()
            storage.set(.string(installID), .install)
        }
        queue = RetainzaOfflineQueue(capacity: profile.maxQueuedEvents, storage: storage)
    }

    // MARK: Identify and track (queueable, §3 and §6)

    public func identify(_ userID: String, attributes: [String: JSONValue] = [:]) async -> RetainzaSendOutcome {
        identifiedUserID = userID
        var attrs = JSONObject([JSONMember(key: "platform", value: .string("ios")),
                                JSONMember(key: "sdk_version", value: .string(Self.sdkVersion))])
        for (k, v) in attributes.sorted(by: { $0.key < $1.key }) { put(&attrs, k, v) }  // the caller's value wins
        return await call(.identify, [(RetainzaBodyKey.userID, .string(userID)), (RetainzaBodyKey.attributes, .object(attrs))])
    }

    public func setAttributes(_ attributes: [String: JSONValue]) async -> RetainzaSendOutcome {
        let attrs = JSONObject(attributes.sorted { $0.key < $1.key }.map { JSONMember(key: $0.key, value: $0.value) })
        return await call(.attributes, [(RetainzaBodyKey.attributes, .object(attrs))])
    }

    public func track(_ event: String, properties: [String: JSONValue] = [:]) async -> RetainzaSendOutcome {
        let props = JSONObject(properties.sorted { $0.key < $1.key }.map { JSONMember(key: $0.key, value: $0.value) })
        return await call(.track, [(RetainzaBodyKey.event, .string(event)), (RetainzaBodyKey.properties, .object(props))])
    }

    /// `addToCollection` / `removeFromCollection` / `setCollection`: `op` is add, remove or set.
    public func collection(_ name: String, op: String, ids: [String]) async -> RetainzaSendOutcome {
        await call(.collection, [(RetainzaBodyKey.collection, .string(name)), (RetainzaBodyKey.operation, .string(op)),
                                 (RetainzaBodyKey.items, .array(JSONArray(ids.map { .string($0) })))])
    }

    // MARK: Push registration (never queued, §4 and §6)

    /// `handleFCMToken(_:)` / `registerPush(token:force:)`.
    public func registerPush(token: String, force: Bool = false) async throws(RetainzaCallError) -> RetainzaSendOutcome {
        if let gated = gate() { return gated }
        guard let user = currentUserID() else {
            warn("registerPush: no user id yet (.missingUserId); call it again after identify")
            throw .missingUserId
        }
        let now = clock.now
        if !force, let record = storage.value(.push)?.objectValue, record["token"]?.stringValue == token,
           record["userId"]?.stringValue == user, let at = record["at"]?.numberValue?.doubleValue,
           now.timeIntervalSince1970 - at < RetainzaContract.registrationResendSeconds {
            return .skippedRecentlyRegistered
        }
        let outcome = await sendNeverQueued(.registerPush, body(.registerPush, [(RetainzaBodyKey.token, .string(token))], at: now, userID: user))
        if case .delivered = outcome {
            storage.set(.object(JSONObject([JSONMember(key: "token", value: .string(token)), JSONMember(key: "userId", value: .string(user)),
                                            JSONMember(key: "at", value: .number(JSONNumber(now.timeIntervalSince1970)))])), .push)
        }
        return outcome
    }

    /// The deprecated `handleDeviceToken(_:)`: logs a warning and registers nothing (§4).
    public func handleDeviceToken(_ apnsToken: String) -> RetainzaSendOutcome {
        warn("handleDeviceToken no longer registers: the raw APNs token \(DeviceToken.redacted(apnsToken)) cannot receive Retainza pushes (FCM); use Messaging.messaging().apnsToken = token and RetainzaPush.handleFCMToken(_:)")
        return .ignoredDeprecated
    }

    /// `reset()` (§3): unregisters this device from the user being left (best effort: an offline
    /// logout still succeeds), forgets the user, the queue, the session and the push record;
    /// keeps the install id.
    @discardableResult
    public func reset() async -> RetainzaSendOutcome? {
        var outcome: RetainzaSendOutcome?
        if let record = storage.value(.push)?.objectValue, let token = record["token"]?.stringValue {
            let user = record["userId"]?.stringValue
            if let gated = gate() { outcome = gated } else {
                outcome = await sendNeverQueued(.unregisterPush, body(.unregisterPush, [(RetainzaBodyKey.token, .string(token))],
                                                                      at: clock.now, userID: user))
            }
        }
        identifiedUserID = nil
        counters.clearedFromQueue += queue.count
        queue.removeAll()
        queue.save(to: storage)
        storage.set(nil, .session)
        storage.set(nil, .push)
        failedFlushes = 0
        nextRetryAt = nil
        return outcome
    }

    /// `setBaseURL(_:)`: redirects traffic and stores the override, when `allowRuntimeBaseURL`
    /// is on; otherwise a warning and nothing changes (§2: keep it off in release builds).
    @discardableResult
    public func setBaseURL(_ url: String) -> Bool {
        guard profile.allowRuntimeBaseURL else {
            warn("setBaseURL ignored: allowRuntimeBaseURL is off")
            return false
        }
        guard RetainzaConfigurationError.check(publicKey: profile.publicKey, baseURL: url) == nil else {
            warn("setBaseURL ignored: \(url) does not end in /v1")
            return false
        }
        var u = url
        while u.hasSuffix("/") { u.removeLast() }
        baseURL = u
        storage.set(.string(u), .baseURL)
        return true
    }

    public var currentBaseURL: String { baseURL }

    // MARK: Consent (§7)

    public func setConsent(analytics: Bool, marketing: Bool) async -> RetainzaSendOutcome {
        consent = (analytics, marketing)
        return await setAttributes(["consent_analytics": .bool(analytics), "consent_marketing": .bool(marketing)])
    }

    /// Stops everything and clears the queue; not persisted.
    public func optOut() {
        optedOut = true
        counters.clearedFromQueue += queue.count
        queue.removeAll()
        queue.save(to: storage)
        nextRetryAt = nil
        failedFlushes = 0
    }

    public func optIn() { optedOut = false }

    // MARK: Sessions (§8)

    public enum SessionStart: String, Sendable { case started, resumed }

    /// `startSession()`: a new session unless the app returns within `sessionTimeoutMs` of the
    /// last `endSession()`, in which case the same session resumes.
    public func startSession() async -> (SessionStart, RetainzaSendOutcome?) {
        let now = clock.now.timeIntervalSince1970
        var s = storage.value(.session)?.objectValue ?? JSONObject()
        let count = s["count"]?.numberValue?.intValue ?? 0
        if count > 0, let end = s["lastEndAt"]?.numberValue?.doubleValue,
           (now - end) * 1000 <= Double(profile.sessionTimeoutMs) {
            put(&s, "lastEndAt", .null)
            storage.set(.object(s), .session)
            return (.resumed, nil)
        }
        put(&s, "count", .number(JSONNumber(count + 1)))
        put(&s, "startedAt", .number(JSONNumber(now)))
        put(&s, "lastEndAt", .null)
        if s["firstAt"] == nil { put(&s, "firstAt", .number(JSONNumber(now))) }
        storage.set(.object(s), .session)
        let outcome = await track("session_start", properties: ["session_count": .number(JSONNumber(count + 1))])
        return (.started, outcome)
    }

    public func endSession() {
        var s = storage.value(.session)?.objectValue ?? JSONObject()
        put(&s, "lastEndAt", .number(JSONNumber(clock.now.timeIntervalSince1970)))
        storage.set(.object(s), .session)
    }

    public var sessionCount: Int { storage.value(.session)?.objectValue?["count"]?.numberValue?.intValue ?? 0 }

    // MARK: Push handlers (acks never queued)

    /// The message id when `userInfo` is a Retainza push (pushlab's model: the `rz_message_id` key).
    public nonisolated static func messageID(in userInfo: JSONValue) -> String? {
        userInfo.objectValue?[RetainzaContract.messageIDKey]?.stringValue
    }

    /// `handleForeground` / `handleBackground` (arrival) and `handleOpen` / `handleLaunchOptions`
    /// (open): true when the push is Retainza's, with what became of the ack.
    public func handle(_ userInfo: JSONValue, action: RetainzaAckAction) async -> (isRetainza: Bool, ack: RetainzaSendOutcome?) {
        guard let id = Self.messageID(in: userInfo) else { return (false, nil) }
        if let gated = gate() { return (true, gated) }
        let outcome = await sendNeverQueued(.ack, body(.ack, [(RetainzaBodyKey.messageID, .string(id)), (RetainzaBodyKey.action, .string(action.rawValue))],
                                                       at: clock.now, userID: currentUserID()))
        if case .delivered = outcome {
            counters.acksDelivered += 1
            if action == .opened { counters.opensDelivered += 1 }
        }
        return (true, outcome)
    }

    // MARK: The offline queue (§6)

    public var queueSize: Int { queue.count }
    public var queuedCalls: [RetainzaQueuedCall] { queue.calls }

    /// `flushQueue()`: sends the waiting calls oldest first and stops at the first failure.
    /// A queued call answered 4xx is dropped (it would fail the same way forever).
    @discardableResult
    public func flushQueue() async -> Int {
        var sent = 0
        while let next = queue.calls.first {
            if gate() != nil { break }
            switch await post(next.route, next.body) {
            case .success(let status) where (200..<300).contains(status):
                queue.removeFirst()
                counters.deliveredLate += 1
                sent += 1
            case .success(let status) where (400..<500).contains(status):
                queue.removeFirst()
                counters.rejected4xx += 1
            case .success(let status):
                return flushFailed("HTTP \(status)", sent: sent)
            case .failure(let error):
                return flushFailed(error, sent: sent)
            }
        }
        queue.save(to: storage)
        failedFlushes = 0
        nextRetryAt = nil
        return sent
    }

    /// Flushes when the back-off has passed; the host calls it as its clock moves.
    @discardableResult
    public func retryIfDue() async -> Int {
        guard let due = nextRetryAt, clock.now >= due, !queue.isEmpty else { return 0 }
        return await flushQueue()
    }

    private func flushFailed(_ reason: String, sent: Int) -> Int {
        queue.save(to: storage)
        failedFlushes += 1
        nextRetryAt = clock.now.addingTimeInterval(RetainzaBackoff.delay(afterFailures: failedFlushes))
        return sent
    }

    // MARK: Plumbing

    /// Consent and opt-out: what stops a call before anything is built (§7).
    private func gate() -> RetainzaSendOutcome? {
        if optedOut { counters.droppedOptedOut += 1; return .droppedOptedOut }
        if profile.requireConsent && consent?.analytics != true { counters.droppedNoConsent += 1; return .droppedNoConsent }
        return nil
    }

    /// `userProvider` is asked on every request and wins; the id from `identify` is the fallback (§2).
    private func currentUserID() -> String? { userProvider() ?? identifiedUserID }

    private func call(_ route: RetainzaRoute, _ fields: [(String, JSONValue)]) async -> RetainzaSendOutcome {
        if let gated = gate() { return gated }
        let now = clock.now
        let userID = route == .identify ? fields.first { $0.0 == RetainzaBodyKey.userID }?.1.stringValue : currentUserID()
        let payload = body(route, fields.filter { $0.0 != RetainzaBodyKey.userID }, at: now, userID: userID)
        if !queue.isEmpty {
            // Order is preserved: a call made while others wait goes behind them.
            enqueue(route, payload, at: now)
            if let due = nextRetryAt, now >= due { await flushQueue() }
            return .queuedBehind
        }
        switch await post(route, payload) {
        case .success(let status) where (200..<300).contains(status):
            counters.delivered += 1
            return .delivered(status: status)
        case .success(let status) where (400..<500).contains(status):
            counters.rejected4xx += 1
            warn("\(route.rawValue): HTTP \(status), not queued (a 4xx fails the same way every time)")
            return .rejected(status: status)
        case .success(let status):
            enqueue(route, payload, at: now)
            _ = flushFailed("HTTP \(status)", sent: 0)
            return .queued(reason: "HTTP \(status)")
        case .failure(let reason):
            enqueue(route, payload, at: now)
            _ = flushFailed(reason, sent: 0)
            return .queued(reason: reason)
        }
    }

    private func enqueue(_ route: RetainzaRoute, _ payload: JSONValue, at: Date) {
        counters.queued += 1
        if let dropped = queue.append(route: route, body: payload, calledAt: at) {
            counters.droppedByCap += 1
            if let event = dropped.body.objectValue?[RetainzaBodyKey.event]?.stringValue { eventsDroppedByCap.append(event) }
        }
        queue.save(to: storage)
    }

    private func sendNeverQueued(_ route: RetainzaRoute, _ payload: JSONValue) async -> RetainzaSendOutcome {
        switch await post(route, payload) {
        case .success(let status) where (200..<300).contains(status):
            if route != .ack { counters.delivered += 1 }
            return .delivered(status: status)
        case .success(let status) where (400..<500).contains(status):
            counters.rejected4xx += 1
            return .rejected(status: status)
        case .success(let status):
            counters.lostNeverQueued += 1
            return .failed(reason: "HTTP \(status)")
        case .failure(let reason):
            counters.lostNeverQueued += 1
            return .failed(reason: reason)
        }
    }

    /// The request body: install id, user id, call-time timestamp, then the call's fields.
    private func body(_ route: RetainzaRoute, _ fields: [(String, JSONValue)], at: Date, userID: String?) -> JSONValue {
        var o = JSONObject([JSONMember(key: RetainzaBodyKey.installID, value: .string(installID))])
        if let userID { o.members.append(JSONMember(key: RetainzaBodyKey.userID, value: .string(userID))) }
        o.members.append(JSONMember(key: RetainzaBodyKey.timestamp, value: .string(ISO8601Timestamp.format(at))))
        for (k, v) in fields { o.members.append(JSONMember(key: k, value: v)) }
        return .object(o)
    }

    private enum PostResult { case success(Int), failure(String) }

    private func post(_ route: RetainzaRoute, _ payload: JSONValue) async -> PostResult {
        var headers = HTTPHeaders()
        headers.add("content-type", "application/json")
        headers.add(RetainzaContract.keyHeader, RetainzaContract.authorization(publicKey: profile.publicKey))
        headers.add("user-agent", "RetainzaSDK/\(Self.sdkVersion) (iOS) \(profile.bundleID)")
        let request = HTTPRequest(method: "POST", url: baseURL + profile.routes.path(route), headers: headers,
                                  body: payload.minifiedBytes(), timeout: .seconds(30))
        do {
            let response = try await transport.send(request)
            return .success(response.status)
        } catch {
            return .failure("network error")
        }
    }

    private func warn(_ message: String) {
        log.append(RetainzaLogLine(at: clock.now, level: .warn, message: message))
    }

    private func put(_ o: inout JSONObject, _ key: String, _ value: JSONValue) {
        if let i = o.members.firstIndex(where: { $0.key == key }) { o.members[i].value = value } else { o.members.append(JSONMember(key: key, value: value)) }
    }
}
