import Foundation
import PushConsole
import PushCore
import PushDevice
import PushGateway
import PushHTTP
import PushMetrics
import TestSupport
import XCTest

/// `serve --console` with a device registered as `android`: an FCM message sent from the
/// console's own form reaches the gateway, the virtual Android phone (the Customer.io Android
/// SDK emulation) draws it, its delivered metric reaches the collector on the same gateway, and
/// the device view shows the shade, channel, metric and tap.
final class ConsoleAndroidTests: XCTestCase {
    static let token = "aNdRoIdCoNsOlE:APA91b" + String(repeating: "consoleAndroidPhoneToken_-", count: 6)

    func testAnFCMMessageForAnAndroidDeviceIsDrawnByTheVirtualAndroidPhone() async throws {
        let devices = DeviceRegistry()
        devices.register(EmulatedDevice(name: "pixel", platform: .android, fcmToken: Self.token, bundleID: "io.pushlab.shop",
                                        firebaseProject: Fixtures.fcmProjectID))
        let h = try ConsoleHarness(devices: devices)
        addTeardownBlock { await h.stop() }
        let image = h.images.url(for: "demo-image.png")
        let message = #"{"message":{"token":"\#(Self.token)","android":{"priority":"high"},"data":{"title":"Android from the form","body":"dlv-android-console","image":"\#(image)","link":"pushlab://products/42","CIO-Delivery-ID":"dlv-android-console","CIO-Delivery-Token":"tok"}}}"#
        let body = String(decoding: try JSONSerialization.data(withJSONObject: ["platform": "fcm", "payload": message]), as: UTF8.self)
        let sent = try await h.post("/console/api/send", json: body)
        XCTAssertEqual(sent.json["outcome"] as? String, "accepted", sent.text)

        var phone: [String: Any]?
        let shown = try await h.eventually(20) {
            let list = try await h.getJSON("/console/api/devices").json["devices"] as? [[String: Any]] ?? []
            phone = list.first { $0["name"] as? String == "pixel" }
            return (phone?["notifications"] as? [Any])?.isEmpty == false
        }
        XCTAssertTrue(shown, "\(String(describing: phone))")
        XCTAssertEqual(phone?["platform"] as? String, "android")
        XCTAssertEqual(phone?["app"] as? String, "io.pushlab.shop")
        let run = try XCTUnwrap((phone?["notifications"] as? [[String: Any]])?.first?["android"] as? [String: Any])
        let report = try XCTUnwrap(run["report"] as? [String: Any])
        let shade = try XCTUnwrap(report["notification"] as? [String: Any], "\(report)")
        XCTAssertEqual(shade["title"] as? String, "Android from the form")
        XCTAssertEqual((shade["image"] as? [String: Any])?["shown"] as? Bool, true, "\(shade)")
        XCTAssertEqual((report["metric"] as? [String: Any])?["fate"] as? String, "sent-once", "\(report)")
        XCTAssertEqual((run["tap"] as? [String: Any])?["target"] as? String, "ProductActivity")

        // The delivered metric reached the collector mounted on the gateway.
        h.collector.flush()
        XCTAssertEqual(try h.collector.report().deliveries.first { $0.deliveryID == "dlv-android-console" }?.delivered, 1)
        // The picture is served for the shade, under the FCM name.
        let name = try XCTUnwrap((phone?["notifications"] as? [[String: Any]])?.first?["messageID"] as? String)
        let picture = try await h.get("/console/api/images/" + (name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
        XCTAssertEqual(picture.status, 200)
        XCTAssertEqual(picture.headers["content-type"], "image/png")
    }
}
