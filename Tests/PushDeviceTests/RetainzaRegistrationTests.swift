import Foundation
import PushCore
import PushDevice
import Synchronization
import TestSupport
import XCTest

/// docs/specs/retainza.md §2–§4 and §8: the key, userProvider, registration, reset, sessions.
final class RetainzaRegistrationTests: XCTestCase {
    private func sdk(_ api: RetainzaTestAPI, clock: ManualTimeSource, storage: any RetainzaStorage = RetainzaMemoryStorage(),
                     user: @escaping @Sendable () -> String?, _ change: (inout RetainzaAppProfile) -> Void = { _ in }) throws -> RetainzaSDK {
        try RetainzaSDK(profile: RetainzaTestProfiles.app(change), storage: storage, transport: api, clock: clock,
                        identifiers: RetainzaTestProfiles.Identifiers(), userProvider: user)
    }

    func testASecretKeyRefusesToStartWithTheConfigurationError() throws {
        let api = RetainzaTestAPI()
        XCTAssertThrowsError(try sdk(api, clock: ManualTimeSource(), user: { nil }) { $0.publicKey = "sk_live_51Habc" }) { error in
            XCTAssertEqual(error as? RetainzaConfigurationError, .secretKey)
            XCTAssertTrue("\(error)".contains(".configuration"))
            XCTAssertFalse("\(error)".contains("51Habc"), "the key is never printed")
        }
        XCTAssertThrowsError(try sdk(api, clock: ManualTimeSource(), user: { nil }) { $0.publicKey = "test_123" }) { error in
            XCTAssertEqual(error as? RetainzaConfigurationError, .notAPublicKey)
        }
        XCTAssertNoThrow(try sdk(api, clock: ManualTimeSource(), user: { nil }) { $0.publicKey = "pk_live_9f" })
    }

    func testTheBaseURLMustEndInV1() throws {
        let api = RetainzaTestAPI()
        XCTAssertThrowsError(try sdk(api, clock: ManualTimeSource(), user: { nil }) { $0.baseURL = "https://engage.example.com/api" }) { error in
            XCTAssertEqual(error as? RetainzaConfigurationError, .baseURLWithoutVersion("https://engage.example.com/api"))
        }
        XCTAssertNoThrow(try sdk(api, clock: ManualTimeSource(), user: { nil }) { $0.baseURL = "https://engage.example.com/v1/" })
    }

    func testUserProviderIsAskedOnEveryRequestAndWinsOverIdentify() async throws {
        let api = RetainzaTestAPI()
        let current = Mutex<String?>("alice")
        let s = try sdk(api, clock: ManualTimeSource(), user: { current.withLock { $0 } })
        _ = await s.track("a")
        current.withLock { $0 = "bob" }
        _ = await s.track("b")
        current.withLock { $0 = nil }
        _ = await s.identify("carol")
        _ = await s.track("c")
        XCTAssertEqual(api.sent(to: "/events").map { $0.body["userId"]?.stringValue }, ["alice", "bob", "carol"],
                       "the provider's current id each time; identify's id only as the fallback")
    }

    func testHandleFCMTokenThrowsMissingUserIdBeforeIdentify() async throws {
        let api = RetainzaTestAPI()
        let s = try sdk(api, clock: ManualTimeSource(), user: { nil })
        do {
            _ = try await s.registerPush(token: RetainzaAppProfile.sampleFCMToken)
            XCTFail("registerPush without a user must throw")
        } catch {
            XCTAssertEqual(error, .missingUserId)
        }
        XCTAssertTrue(api.sent(to: "/push/register").isEmpty)
        _ = await s.identify("user-123")
        let outcome = try await s.registerPush(token: RetainzaAppProfile.sampleFCMToken)
        XCTAssertEqual(outcome, .delivered(status: 200))
        XCTAssertEqual(api.sent(to: "/push/register").first?.body["userId"]?.stringValue, "user-123")
    }

    func testAnUnchangedTokenIsResentAtMostOnceEvery24HoursUnlessForced() async throws {
        let api = RetainzaTestAPI()
        let clock = ManualTimeSource()
        let s = try sdk(api, clock: clock, user: { "user-123" })
        let token = RetainzaAppProfile.sampleFCMToken
        let first = try await s.registerPush(token: token)
        XCTAssertEqual(first, .delivered(status: 200))
        clock.advance(by: 23 * 3600)
        let again = try await s.registerPush(token: token)
        XCTAssertEqual(again, .skippedRecentlyRegistered)
        let forced = try await s.registerPush(token: token, force: true)
        XCTAssertEqual(forced, .delivered(status: 200))
        let rotated = try await s.registerPush(token: token + "x")
        XCTAssertEqual(rotated, .delivered(status: 200), "a new token is sent at once")
        clock.advance(by: 24 * 3600)
        let nextDay = try await s.registerPush(token: token + "x")
        XCTAssertEqual(nextDay, .delivered(status: 200))
        XCTAssertEqual(api.sent(to: "/push/register").count, 4)
    }

    func testHandleDeviceTokenWarnsAndRegistersNothing() async throws {
        let api = RetainzaTestAPI()
        let s = try sdk(api, clock: ManualTimeSource(), user: { "user-123" })
        let outcome = await s.handleDeviceToken(RetainzaAppProfile(publicKey: "pk_test_x").apnsToken)
        XCTAssertEqual(outcome, .ignoredDeprecated)
        XCTAssertTrue(api.sent.isEmpty)
        let log = await s.log
        XCTAssertEqual(log.map(\.level), [.warn])
        XCTAssertTrue(log.first?.message.contains("handleDeviceToken no longer registers") == true)
    }

    func testResetUnregistersBestEffortAndKeepsTheInstallID() async throws {
        let api = RetainzaTestAPI()
        let storage = RetainzaMemoryStorage()
        let s = try sdk(api, clock: ManualTimeSource(), storage: storage, user: { "user-123" })
        let install = s.installID
        _ = try await s.registerPush(token: RetainzaAppProfile.sampleFCMToken)
        api.offline()
        _ = await s.track("queued_before_logout")
        let outcome = await s.reset()
        XCTAssertEqual(outcome, .failed(reason: "network error"), "an offline logout still succeeds")
        let size = await s.queueSize
        XCTAssertEqual(size, 0, "the next user does not inherit queued events")
        XCTAssertNil(storage.value(.push))
        XCTAssertEqual(storage.value(.install)?.stringValue, install, "the install id describes the device and stays")
        // Online: the unregistration names the token and the user being left.
        api.online()
        _ = try await s.registerPush(token: RetainzaAppProfile.sampleFCMToken)
        await s.reset()
        let unregister = try XCTUnwrap(api.sent(to: "/push/unregister").last)
        XCTAssertEqual(unregister.body["token"]?.stringValue, RetainzaAppProfile.sampleFCMToken)
        XCTAssertEqual(unregister.body["installId"]?.stringValue, install)
        let relaunched = try sdk(api, clock: ManualTimeSource(), storage: storage, user: { nil })
        XCTAssertEqual(relaunched.installID, install)
    }

    func testARuntimeBaseURLIsStoredOnlyWhenAllowed() async throws {
        let api = RetainzaTestAPI()
        let storage = RetainzaMemoryStorage()
        let locked = try sdk(api, clock: ManualTimeSource(), storage: storage, user: { "user-123" })
        let refused = await locked.setBaseURL("https://staging.example.com/v1")
        XCTAssertFalse(refused, "allowRuntimeBaseURL defaults to debug, which is off")
        XCTAssertNil(storage.value(.baseURL))
        let open = try sdk(api, clock: ManualTimeSource(), storage: storage, user: { "user-123" }) { $0.allowRuntimeBaseURL = true }
        let noVersion = await open.setBaseURL("https://staging.example.com/api")
        XCTAssertFalse(noVersion)
        let accepted = await open.setBaseURL("https://staging.example.com/v1")
        XCTAssertTrue(accepted)
        XCTAssertEqual(storage.value(.baseURL)?.stringValue, "https://staging.example.com/v1")
        _ = await open.track("e")
        XCTAssertEqual(api.sent.last?.path, "/v1/events")
        // The next launch: the stored override applies only where it is allowed.
        let relaunched = try sdk(api, clock: ManualTimeSource(), storage: storage, user: { nil }) { $0.allowRuntimeBaseURL = true }
        let url = await relaunched.currentBaseURL
        XCTAssertEqual(url, "https://staging.example.com/v1")
        let release = try sdk(api, clock: ManualTimeSource(), storage: storage, user: { nil })
        let releaseURL = await release.currentBaseURL
        XCTAssertEqual(releaseURL, "https://ingest.test/retainza/v1", "a release build ignores the stored override")
    }

    func testASessionResumesWithinTheTimeoutAndStartsAfterIt() async throws {
        let api = RetainzaTestAPI()
        let clock = ManualTimeSource()
        let s = try sdk(api, clock: clock, user: { "user-123" }) { $0.sessionTimeoutMs = 30 * 60 * 1000 }
        let first = await s.startSession()
        XCTAssertEqual(first.0, .started)
        await s.endSession()
        clock.advance(by: 29 * 60)
        let back = await s.startSession()
        XCTAssertEqual(back.0, .resumed, "back within 30 minutes: the same session")
        await s.endSession()
        clock.advance(by: 31 * 60)
        let later = await s.startSession()
        XCTAssertEqual(later.0, .started)
        let count = await s.sessionCount
        XCTAssertEqual(count, 2)
        XCTAssertEqual(api.sent(to: "/events").map { $0.body["event"]?.stringValue }, ["session_start", "session_start"])
    }
}
