import Foundation
import PushCore
import PushHTTP

/// A virtual iPhone whose app embeds the Retainza SDK (docs/retainza.md): the app's
/// integration calls as its profile lists them, pushes that arrive through FCM, taps warm and
/// cold, kills and relaunches (the storage decides what survives), and a timeline of it all.
public actor RetainzaPhone {
    public nonisolated let profile: RetainzaAppProfile
    public nonisolated let connectivity: RetainzaConnectivity
    private let clock: any TimeSource
    private let identifiers: any IdentifierSource
    /// The container directory for the UserDefaults file (nil: a memory-only UserDefaults too).
    private let container: String?
    public private(set) var sdk: RetainzaSDK?
    public private(set) var startError: RetainzaConfigurationError?
    public private(set) var state: RetainzaAppState = .killed
    public private(set) var timeline: [RetainzaTimelineEntry] = []
    /// The token the app registered with Retainza (FCM or nothing).
    public private(set) var registeredToken: String?
    private var persistent: (any RetainzaStorage)?
    /// Counters summed over every launch (each launch has its own SDK).
    private var past = RetainzaCounters()
    private var pastDroppedEvents: [String] = []
    public private(set) var launches = 0

    public init(profile: RetainzaAppProfile, container: String?, transport: any HTTPTransport, clock: any TimeSource,
                identifiers: any IdentifierSource = SystemIdentifierSource()) {
        self.profile = profile
        self.connectivity = RetainzaConnectivity(transport)
        self.clock = clock
        self.identifiers = identifiers
        self.container = container
    }

    private func note(_ kind: String, _ text: String) {
        timeline.append(RetainzaTimelineEntry(at: clock.now, kind: kind, text: text))
    }

    private func storage() throws -> any RetainzaStorage {
        switch profile.storage {
        case .memory:
            return RetainzaMemoryStorage()  // storage: nil — a new process starts empty
        case .userDefaults:
            if let persistent { return persistent }
            let s: any RetainzaStorage = try container.map { try RetainzaUserDefaultsStorage(container: $0, bundleID: profile.bundleID) }
                ?? RetainzaMemoryStorage()
            persistent = s
            return s
        }
    }

    /// A cold start: didFinishLaunchingWithOptions with the tapped push (if a tap launched the
    /// app), in the seed's order — start, handleLaunchOptions, consent, session, token, identify.
    @discardableResult
    public func launch(tapped: JSONValue? = nil) async -> RetainzaOpen? {
        if let old = sdk {
            // A launch replaces the running process: its counters stay in the totals.
            past = Self.sum(past, await old.counters)
            pastDroppedEvents += await old.eventsDroppedByCap
            sdk = nil
        }
        launches += 1
        state = .foreground
        note("launch", tapped == nil ? "cold start" : "cold start from a notification tap")
        let sdk: RetainzaSDK
        do {
            let user = profile.userID
            sdk = try RetainzaSDK(profile: profile, storage: try storage(), transport: connectivity, clock: clock,
                                  identifiers: identifiers, userProvider: { user })
        } catch let error as RetainzaConfigurationError {
            startError = error
            note("sdk", "Retainza.start failed: \(error.reason)")
            return tapped.map { _ in RetainzaOpen(handler: nil, ack: nil, lost: .sdkNotStarted) }
        } catch {
            note("sdk", "storage unavailable: \(error)")
            return nil
        }
        self.sdk = sdk
        note("sdk", "started (install id \(sdk.installID.prefix(8))…, \(await sdk.queueSize) queued from storage \(profile.storage.rawValue))")
        var open: RetainzaOpen?
        if let tapped {
            if profile.calls(.handleLaunchOptions) {
                open = await opened(tapped, handler: "handleLaunchOptions", sdk: sdk)
            } else {
                // A tap that launches the app never reaches the delegate (§4).
                open = RetainzaOpen(handler: nil, ack: nil, lost: RetainzaSDK.messageID(in: tapped) == nil ? .notRetainza : .missingHandleLaunchOptions)
                note("tap", "launch options not handed to the SDK: the open is not counted")
            }
        }
        if profile.calls(.setConsent) {
            let outcome = await sdk.setConsent(analytics: true, marketing: profile.consentMarketing)
            note("call", "setConsent(analytics: true, marketing: \(profile.consentMarketing)): \(outcome)")
        }
        if profile.calls(.startSession) {
            let (kind, outcome) = await sdk.startSession()
            note("call", "startSession: \(kind.rawValue)" + (outcome.map { ", session_start \($0)" } ?? ""))
        }
        await registerTokens(sdk)
        await flush(sdk)
        return open
    }

    private func registerTokens(_ sdk: RetainzaSDK) async {
        if profile.calls(.handleDeviceToken) {
            let outcome = await sdk.handleDeviceToken(profile.apnsToken)
            note("token", "handleDeviceToken(\(DeviceToken.redacted(profile.apnsToken))): \(outcome)")
            for line in await sdk.log.suffix(1) { note("warning", line.message) }
        }
        var fcmToken: String?
        if profile.calls(.messagingAPNsToken) {
            fcmToken = profile.fcmToken
            note("token", "Messaging.apnsToken set: Firebase issued FCM token \(DeviceToken.redacted(profile.fcmToken))")
        } else {
            note("token", "the APNs token is not handed to Firebase: no FCM token")
        }
        if let fcmToken, profile.calls(.handleFCMToken) {
            await register(sdk, fcmToken, via: "handleFCMToken")
        }
        if profile.calls(.identify) {
            let outcome = await sdk.identify(profile.identifyUserID)
            note("call", "identify(\(profile.identifyUserID)): \(outcome)")
            if let fcmToken, profile.calls(.registerPushAfterIdentify) {
                await register(sdk, fcmToken, via: "registerPush after identify")
            }
        }
    }

    private func register(_ sdk: RetainzaSDK, _ token: String, via: String, force: Bool = false) async {
        do {
            let outcome = try await sdk.registerPush(token: token, force: force)
            if case .delivered = outcome { registeredToken = token }
            if case .skippedRecentlyRegistered = outcome { registeredToken = token }
            note("token", "\(via)(\(DeviceToken.redacted(token))): \(outcome)")
        } catch {
            note("token", "\(via)(\(DeviceToken.redacted(token))): throws .missingUserId — no user yet")
        }
    }

    /// iOS delivers a push (what FCM made of the message). `state` is where the app is.
    public func receive(_ userInfo: JSONValue) async -> RetainzaArrival {
        let isRetainza = RetainzaSDK.messageID(in: userInfo) != nil
        let aps = userInfo.objectValue?["aps"]?.objectValue
        let silent = aps?["alert"] == nil && aps?["content-available"]?.numberValue?.intValue == 1
        guard let sdk, state != .killed else {
            note("push", "arrived while the app is not running: \(silent ? "silent push dropped by iOS" : "shown by iOS"); no handler runs")
            return RetainzaArrival(isRetainza: isRetainza, handler: nil, ack: nil)
        }
        let handler: RetainzaIntegrationCall? = state == .foreground && !silent ? .handleForeground : silent ? .handleBackground : nil
        guard let handler else {
            note("push", "arrived in the background: shown by iOS; no handler runs until a tap")
            return RetainzaArrival(isRetainza: isRetainza, handler: nil, ack: nil)
        }
        guard profile.calls(handler) else {
            note("push", "arrived (\(state.rawValue)); the app does not call \(handler.rawValue)")
            return RetainzaArrival(isRetainza: isRetainza, handler: nil, ack: nil)
        }
        let (retainza, ack) = await sdk.handle(userInfo, action: .received)
        note("push", "\(handler.rawValue) → \(retainza ? "Retainza push, ack \(ack.map { "\($0)" } ?? "-")" : "not a Retainza push (false)")")
        return RetainzaArrival(isRetainza: retainza, handler: handler.rawValue, ack: ack)
    }

    /// The user taps the notification: warm (the app runs) reaches `didReceive`; cold launches the app.
    public func tap(_ userInfo: JSONValue) async -> RetainzaOpen {
        if state == .killed || sdk == nil {
            return await launch(tapped: userInfo) ?? RetainzaOpen(handler: nil, ack: nil, lost: .sdkNotStarted)
        }
        state = .foreground
        guard let sdk else { return RetainzaOpen(handler: nil, ack: nil, lost: .sdkNotStarted) }
        guard profile.calls(.handleOpen) else {
            note("tap", "didReceive: the app does not call handleOpen; the open is not counted")
            return RetainzaOpen(handler: nil, ack: nil, lost: RetainzaSDK.messageID(in: userInfo) == nil ? .notRetainza : .missingHandleOpen)
        }
        return await opened(userInfo, handler: "handleOpen", sdk: sdk)
    }

    private func opened(_ userInfo: JSONValue, handler: String, sdk: RetainzaSDK) async -> RetainzaOpen {
        let (retainza, ack) = await sdk.handle(userInfo, action: .opened)
        note("tap", "\(handler) → \(retainza ? "opened ack \(ack.map { "\($0)" } ?? "-")" : "not a Retainza push")")
        guard retainza else { return RetainzaOpen(handler: handler, ack: nil, lost: .notRetainza) }
        let lost: RetainzaOpen.LostCause?
        switch ack {
        case .delivered?: lost = nil
        case .droppedNoConsent?: lost = .consent
        case .droppedOptedOut?: lost = .optedOut
        case .rejected?: lost = .rejected
        default: lost = .offline
        }
        return RetainzaOpen(handler: handler, ack: ack, lost: lost)
    }

    public func toBackground() async {
        guard let sdk, state == .foreground else { return }
        state = .background
        if profile.calls(.endSession) { await sdk.endSession(); note("call", "endSession") }
    }

    public func toForeground() async {
        guard let sdk, state == .background else { return }
        state = .foreground
        if profile.calls(.startSession) {
            let (kind, outcome) = await sdk.startSession()
            note("call", "startSession: \(kind.rawValue)" + (outcome.map { ", session_start \($0)" } ?? ""))
        }
        await flush(sdk)
    }

    /// The process dies: memory is gone; the UserDefaults file stays.
    public func kill() async {
        if let sdk {
            past = Self.sum(past, await sdk.counters)
            pastDroppedEvents += await sdk.eventsDroppedByCap
        }
        sdk = nil
        state = .killed
        note("launch", "process killed")
    }

    public func setOffline(_ offline: Bool) {
        connectivity.isOffline = offline
        note("network", offline ? "offline" : "online")
    }

    /// An app call: track an event.
    @discardableResult
    public func track(_ event: String) async -> RetainzaSendOutcome? {
        guard let sdk else { return nil }
        let outcome = await sdk.track(event)
        note("call", "track(\(event)): \(outcome)")
        return outcome
    }

    /// Lets the SDK's back-off timer fire if due.
    public func tick() async {
        guard let sdk else { return }
        let sent = await sdk.retryIfDue()
        if sent > 0 { note("queue", "flushed \(sent) queued call(s), each with its call-time timestamp") }
    }

    private func flush(_ sdk: RetainzaSDK) async {
        guard await sdk.queueSize > 0 else { return }
        let sent = await sdk.flushQueue()
        note("queue", "flushQueue: \(sent) sent, \(await sdk.queueSize) still waiting")
    }

    /// Tracked events the queue's cap dropped, over every launch.
    public func eventsDroppedByCap() async -> [String] {
        pastDroppedEvents + (await sdk?.eventsDroppedByCap ?? [])
    }

    /// Counters over every launch so far.
    public func counters() async -> RetainzaCounters {
        guard let sdk else { return past }
        return Self.sum(past, await sdk.counters)
    }

    static func sum(_ a: RetainzaCounters, _ b: RetainzaCounters) -> RetainzaCounters {
        var c = a
        c.delivered += b.delivered; c.queued += b.queued; c.deliveredLate += b.deliveredLate
        c.droppedByCap += b.droppedByCap; c.rejected4xx += b.rejected4xx; c.droppedNoConsent += b.droppedNoConsent
        c.droppedOptedOut += b.droppedOptedOut; c.clearedFromQueue += b.clearedFromQueue
        c.lostNeverQueued += b.lostNeverQueued; c.acksDelivered += b.acksDelivered; c.opensDelivered += b.opensDelivered
        return c
    }
}
