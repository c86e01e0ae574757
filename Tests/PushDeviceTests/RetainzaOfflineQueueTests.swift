import Foundation
import PushCore
import PushDevice
import Synchronization
import TestSupport
import XCTest

/// docs/specs/retainza.md §6 and §7, one test per rule, on an emulated clock (nothing sleeps).
final class RetainzaOfflineQueueTests: XCTestCase {
    private var directory: URL!

    override func setUp() { directory = Fixtures.temporaryDirectory("retainza-queue") }
    override func tearDown() { try? FileManager.default.removeItem(at: directory) }

    private func sdk(_ api: RetainzaTestAPI, clock: ManualTimeSource, storage: (any RetainzaStorage)? = nil,
                     user: String? = "user-123", _ change: (inout RetainzaAppProfile) -> Void = { _ in }) throws -> RetainzaSDK {
        try RetainzaSDK(profile: RetainzaTestProfiles.app(change), storage: storage ?? RetainzaMemoryStorage(), transport: api,
                        clock: clock, identifiers: RetainzaTestProfiles.Identifiers(), userProvider: { user })
    }

    func testTrackIdentifySetAttributesAndCollectionsAreQueuedOnNetworkErrorAndOn5xx() async throws {
        for failure: Int? in [nil, 500, 503] {
            let api = RetainzaTestAPI { _ in failure }
            let s = try sdk(api, clock: ManualTimeSource())
            let a = await s.track("order_placed")
            XCTAssertEqual(a, .queued(reason: failure.map { "HTTP \($0)" } ?? "network error"))
            _ = await s.identify("user-123")
            _ = await s.setAttributes(["plan": .string("pro")])
            _ = await s.collection("challenges", op: "add", ids: ["lagos_10k"])
            let routes = await s.queuedCalls.map(\.route)
            XCTAssertEqual(routes, [.track, .identify, .attributes, .collection], "failure \(failure.map(String.init) ?? "network")")
        }
    }

    func test4xxIsNeverQueued() async throws {
        for status in [400, 401, 403, 404, 422] {
            let api = RetainzaTestAPI { _ in status }
            let s = try sdk(api, clock: ManualTimeSource())
            let outcome = await s.track("order_placed")
            XCTAssertEqual(outcome, .rejected(status: status))
            let size = await s.queueSize
            XCTAssertEqual(size, 0)
            let rejected = await s.counters.rejected4xx
            XCTAssertEqual(rejected, 1)
        }
    }

    func testRetryBackoffIsOneSecondDoublingToAFiveMinuteCeiling() async throws {
        XCTAssertEqual((1...12).map(RetainzaBackoff.delay(afterFailures:)), [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300])
        let clock = ManualTimeSource()
        let api = RetainzaTestAPI { _ in 503 }
        let s = try sdk(api, clock: clock)
        _ = await s.track("a")
        var waits: [Double] = []
        for _ in 0..<10 {
            let next = await s.nextRetryAt
            let due = try XCTUnwrap(next)
            waits.append(due.timeIntervalSince(clock.now))
            clock.advance(by: due.timeIntervalSince(clock.now) - 0.001)
            let early = await s.retryIfDue()
            XCTAssertEqual(early, 0)
            let attemptsBefore = api.sent.count
            clock.advance(by: 0.001)
            await s.retryIfDue()
            XCTAssertEqual(api.sent.count, attemptsBefore + 1, "one attempt when the back-off has passed")
        }
        XCTAssertEqual(waits, [1, 2, 4, 8, 16, 32, 64, 128, 256, 300])
    }

    func testOrderIsPreservedAndAFlushStopsAtTheFirstFailure() async throws {
        let clock = ManualTimeSource()
        let api = RetainzaTestAPI { _ in nil }
        let s = try sdk(api, clock: clock)
        for name in ["e1", "e2", "e3", "e4"] { _ = await s.track(name) }
        // e1 and e2 go through, e3 meets a 5xx: the flush stops and e4 is not tried.
        let answered = Mutex(0)
        api.answer { _ in
            let n = answered.withLock { $0 += 1; return $0 }
            return n <= 2 ? 200 : 500
        }
        let sent = await s.flushQueue()
        XCTAssertEqual(sent, 2)
        XCTAssertEqual(api.sent.map { $0.body["event"]?.stringValue }, ["e1", "e2", "e3"])
        let left = await s.queuedCalls.map { $0.body.objectValue?["event"]?.stringValue }
        XCTAssertEqual(left, ["e3", "e4"])
        // A call made while others wait goes behind them.
        api.offline()
        let late = await s.track("e5")
        XCTAssertEqual(late, .queuedBehind)
        api.online()
        await s.flushQueue()
        XCTAssertEqual(api.sent.suffix(3).map { $0.body["event"]?.stringValue }, ["e3", "e4", "e5"])
    }

    func testTimestampsAreStampedAtCallTime() async throws {
        let clock = ManualTimeSource()
        let api = RetainzaTestAPI { _ in nil }
        let s = try sdk(api, clock: clock)
        let calledAt = clock.now
        _ = await s.track("order_placed")
        clock.advance(by: 3600)
        api.online()
        await s.flushQueue()
        let body = try XCTUnwrap(api.sent(to: "/events").first?.body)
        XCTAssertEqual(body["timestamp"]?.stringValue, ISO8601Timestamp.format(calledAt), "an hour later, the event still says when it happened")
        let late = await s.counters.deliveredLate
        XCTAssertEqual(late, 1)
    }

    func testTheOldestIsDroppedPastMaxQueuedEvents() async throws {
        let api = RetainzaTestAPI { _ in nil }
        let s = try sdk(api, clock: ManualTimeSource()) { $0.maxQueuedEvents = 100 }
        for i in 1...105 { _ = await s.track("e\(i)") }
        let calls = await s.queuedCalls
        XCTAssertEqual(calls.count, 100)
        XCTAssertEqual(calls.first?.body.objectValue?["event"]?.stringValue, "e6")
        XCTAssertEqual(calls.last?.body.objectValue?["event"]?.stringValue, "e105")
        let dropped = await s.counters.droppedByCap
        XCTAssertEqual(dropped, 5)
    }

    func testTheQueueSurvivesARestartWithUserDefaultsStorage() async throws {
        let clock = ManualTimeSource()
        let api = RetainzaTestAPI { _ in nil }
        do {
            let storage = try RetainzaUserDefaultsStorage(container: directory.path, bundleID: "io.pushlab.retainza")
            let s = try sdk(api, clock: clock, storage: storage)
            _ = await s.track("before_kill")
            XCTAssertEqual(storage.storedKeys, ["engage.install.v1", "engage.queue.v1"])
        }
        // A new process: a new storage object reads the same UserDefaults file.
        let reopened = try RetainzaUserDefaultsStorage(container: directory.path, bundleID: "io.pushlab.retainza")
        let s2 = try sdk(api, clock: clock, storage: reopened)
        let size = await s2.queueSize
        XCTAssertEqual(size, 1)
        api.online()
        await s2.flushQueue()
        XCTAssertEqual(api.sent(to: "/events").map { $0.body["event"]?.stringValue }, ["before_kill"])
    }

    func testTheQueueIsLostWithStorageNil() async throws {
        let api = RetainzaTestAPI { _ in nil }
        let s = try sdk(api, clock: ManualTimeSource(), storage: RetainzaMemoryStorage())
        _ = await s.track("before_kill")
        let size = await s.queueSize
        XCTAssertEqual(size, 1)
        // storage: nil — the next process starts with a fresh memory store.
        let s2 = try sdk(api, clock: ManualTimeSource(), storage: RetainzaMemoryStorage())
        let after = await s2.queueSize
        XCTAssertEqual(after, 0)
    }

    func testRegisterPushAndAcksAreNeverQueued() async throws {
        let api = RetainzaTestAPI { _ in nil }
        let s = try sdk(api, clock: ManualTimeSource())
        let registered = try await s.registerPush(token: RetainzaAppProfile.sampleFCMToken)
        XCTAssertEqual(registered, .failed(reason: "network error"))
        let push: JSONValue = .object(JSONObject([JSONMember(key: "rz_message_id", value: .string("m-1"))]))
        let open = await s.handle(push, action: .opened)
        XCTAssertEqual(open.ack, .failed(reason: "network error"))
        api.answer { _ in 503 }
        let ack = await s.handle(push, action: .received)
        XCTAssertEqual(ack.ack, .failed(reason: "HTTP 503"))
        let size = await s.queueSize
        XCTAssertEqual(size, 0)
        let lost = await s.counters.lostNeverQueued
        XCTAssertEqual(lost, 3)
    }

    func testPreConsentCallsAreDroppedNotQueued() async throws {
        let api = RetainzaTestAPI()
        let s = try sdk(api, clock: ManualTimeSource()) { $0.requireConsent = true }
        let identify = await s.identify("user-123")
        let track = await s.track("before_consent")
        let register = try await s.registerPush(token: RetainzaAppProfile.sampleFCMToken)
        let ack = await s.handle(.object(JSONObject([JSONMember(key: "rz_message_id", value: .string("m-1"))])), action: .opened)
        XCTAssertEqual([identify, track, register, ack.ack], [.droppedNoConsent, .droppedNoConsent, .droppedNoConsent, .droppedNoConsent])
        XCTAssertEqual(api.sent.count, 0, "nothing leaves the device, not even identify")
        _ = await s.setConsent(analytics: true, marketing: false)
        await s.flushQueue()
        XCTAssertEqual(api.sent.map(\.path), ["/retainza/v1/attributes"], "nothing was queued to replay; only the consent attributes go")
        XCTAssertEqual(api.sent.first?.body["attributes"]?.objectValue?["consent_marketing"], .bool(false))
        let after = await s.track("after_consent")
        XCTAssertEqual(after, .delivered(status: 200))
    }

    func testConsentIsNotPersisted() async throws {
        let api = RetainzaTestAPI()
        let storage = try RetainzaUserDefaultsStorage(container: directory.path, bundleID: "io.pushlab.retainza")
        let s = try sdk(api, clock: ManualTimeSource(), storage: storage) { $0.requireConsent = true }
        _ = await s.setConsent(analytics: true, marketing: true)
        XCTAssertFalse(storage.storedKeys.contains { $0.contains("consent") })
        let relaunched = try sdk(api, clock: ManualTimeSource(), storage: storage) { $0.requireConsent = true }
        let outcome = await relaunched.track("next_launch")
        XCTAssertEqual(outcome, .droppedNoConsent, "setConsent must be called on every launch")
    }

    func testOptOutStopsEverythingAndClearsTheQueueAndIsNotPersisted() async throws {
        let api = RetainzaTestAPI { _ in nil }
        let storage = RetainzaMemoryStorage()
        let s = try sdk(api, clock: ManualTimeSource(), storage: storage)
        for i in 1...3 { _ = await s.track("e\(i)") }
        await s.optOut()
        let size = await s.queueSize
        XCTAssertEqual(size, 0)
        XCTAssertEqual(storage.value(.queue)?.arrayValue?.count, 0, "the stored queue is cleared too")
        api.online()
        let sentBefore = api.sent.count
        let track = await s.track("after_opt_out")
        let register = try await s.registerPush(token: RetainzaAppProfile.sampleFCMToken)
        XCTAssertEqual([track, register], [.droppedOptedOut, .droppedOptedOut])
        XCTAssertEqual(api.sent.count, sentBefore)
        let relaunched = try sdk(api, clock: ManualTimeSource(), storage: storage)
        let next = await relaunched.track("next_launch")
        XCTAssertEqual(next, .delivered(status: 200), "opt-out is not persisted: the app re-asserts it each launch")
        await s.optIn()
        let lifted = await s.track("after_opt_in")
        XCTAssertEqual(lifted, .delivered(status: 200))
    }
}
