import Foundation
import PushCore
import PushDevice
import TestSupport
import XCTest

/// The handlers a Retainza phone runs per app state (docs/retainza.md "The push path"), on the
/// scripted ingest API; the end-to-end path through FCM is RetainzaPushPathTests.
final class RetainzaPhoneTests: XCTestCase {
    private func push(_ id: String, silent: Bool = false) -> JSONValue {
        let aps: JSONValue = silent ? .object(JSONObject([JSONMember(key: "content-available", value: .number(JSONNumber(1)))]))
            : .object(JSONObject([JSONMember(key: "alert", value: .object(JSONObject([JSONMember(key: "title", value: .string("Sale"))])))]))
        return .object(JSONObject([JSONMember(key: "aps", value: aps), JSONMember(key: "rz_message_id", value: .string(id))]))
    }

    private func phone(_ api: RetainzaTestAPI, _ change: (inout RetainzaAppProfile) -> Void = { _ in }) -> RetainzaPhone {
        RetainzaPhone(profile: RetainzaTestProfiles.app(change), container: nil, transport: api, clock: ManualTimeSource())
    }

    private func acks(_ api: RetainzaTestAPI) -> [String] {
        api.sent(to: "/push/ack").map { "\($0.body["messageId"]?.stringValue ?? "?"):\($0.body["action"]?.stringValue ?? "?")" }
    }

    func testEachAppStateRunsItsHandler() async throws {
        let api = RetainzaTestAPI()
        let p = phone(api)
        await p.launch()
        let foreground = await p.receive(push("fg"))
        XCTAssertEqual(foreground.handler, "handleForeground")
        await p.toBackground()
        let background = await p.receive(push("bg"))
        XCTAssertNil(background.handler, "an alert in the background is shown by iOS; nothing runs until a tap")
        let silent = await p.receive(push("silent", silent: true))
        XCTAssertEqual(silent.handler, "handleBackground")
        let warm = await p.tap(push("bg"))
        XCTAssertEqual(warm.handler, "handleOpen")
        await p.kill()
        let killed = await p.receive(push("cold"))
        XCTAssertNil(killed.handler)
        let cold = await p.tap(push("cold"))
        XCTAssertEqual(cold.handler, "handleLaunchOptions")
        XCTAssertEqual(acks(api), ["fg:received", "silent:received", "bg:opened", "cold:opened"])
    }

    func testAMissingHandlerMeansNoAck() async throws {
        let api = RetainzaTestAPI()
        let p = phone(api) { $0.calls.subtract([.handleForeground, .handleBackground, .handleOpen, .handleLaunchOptions]) }
        await p.launch()
        _ = await p.receive(push("fg"))
        await p.toBackground()
        _ = await p.receive(push("silent", silent: true))
        let warm = await p.tap(push("bg"))
        XCTAssertEqual(warm.lost, .missingHandleOpen)
        await p.kill()
        let cold = await p.tap(push("cold"))
        XCTAssertEqual(cold.lost, .missingHandleLaunchOptions)
        XCTAssertEqual(acks(api), [])
    }

    func testAnOpenTappedOfflineIsLostButTheEventWaits() async throws {
        let api = RetainzaTestAPI()
        let p = phone(api)
        await p.launch()
        await p.toBackground()
        await p.setOffline(true)
        let open = await p.tap(push("m"))
        XCTAssertEqual(open.lost, .offline, "acks are never queued")
        let event = await p.track("viewed")
        XCTAssertEqual(event, .queued(reason: "network error"))
        await p.setOffline(false)
        await p.toBackground()
        await p.toForeground()  // the launch-time flush
        XCTAssertEqual(api.sent(to: "/events").compactMap { $0.body["event"]?.stringValue }.filter { $0 == "viewed" }, ["viewed"])
        XCTAssertEqual(acks(api), [])
    }
}
