import Foundation
import PushCore
import PushHTTP
@testable import PushDevice
import TestSupport
import XCTest

/// One push through the NSE emulator, then tapped: the image the extension saved under
/// `<tmp>/cio_sdk/` is deleted by the tap (docs/specs/device-side.md §2, §5), and `opened` carries the
/// same delivery id and token as the extension's `delivered`.
final class TapAfterNotificationServiceExtensionTests: XCTestCase {
    func testTheTapDeletesTheImageTheExtensionSaved() async throws {
        let tmp = Fixtures.temporaryDirectory("nse-tap")
        defer { try? FileManager.default.removeItem(at: tmp) }
        let app = AppProfile(bundleID: "io.pushlab.demo", extensionBundleID: "io.pushlab.demo.richpush", cdpAPIKey: "key",
                             metricsBaseURL: "https://metrics.test",
                             deepLinks: DeepLinkProfile(urlSchemes: ["pushlab"], callback: .init(accepts: ["pushlab://*"])))
        let imageAndMetric = ScriptedTransport { request, _ in
            request.url.hasPrefix("https://metrics.test")
                ? .init(response: HTTPResponse(status: 200, body: Array("{}".utf8)))
                : .init(response: HTTPResponse(status: 200, headers: ["content-type": "image/png"], body: TestImages.png()))
        }
        let payload = try JSONParser().parse(TestPayloads.cio(image: "https://img.test/banner.png")).root
        let nse = NotificationServiceExtension(configuration: NSEConfiguration(profile: app, temporaryDirectory: tmp),
                                               transport: imageAndMetric)
        let shown = await nse.run(payload: payload)
        let attachments = try XCTUnwrap(shown.notification?.attachments)
        XCTAssertEqual(attachments.count, 1)
        XCTAssertTrue(FileManager.default.fileExists(atPath: attachments[0].path))

        let clock = ManualTimeSource()
        let pipeline = EventPipeline(configuration: EventPipelineConfiguration(profile: app),
                                     transport: EventPipelineScriptedTransport(), time: clock)
        let tap = TapHandler(app: app, pipeline: pipeline, identity: PipelineIdentity(anonymousId: "anon"), time: clock)
        let outcome = await tap.handle(payload: payload, tap: Tap(action: .default, state: .cold),
                                       attachments: attachments.map(NotificationAttachment.init))

        XCTAssertFalse(FileManager.default.fileExists(atPath: attachments[0].path))
        XCTAssertEqual(outcome.deletedImageFiles, [attachments[0].path])
        XCTAssertEqual(outcome.tier, .callback)
        XCTAssertEqual(outcome.openedEvent?.properties["deliveryId"], "RPILAgUBcRhIBqSfeiIwdIYJKxTY")
        XCTAssertEqual(outcome.openedEvent?.properties["recipient"], "0f8b3e5a1c2d4e5f8a9b0c1d2e3f4a5b")
    }
}
