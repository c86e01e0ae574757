import Foundation
import TestSupport
import XCTest

/// `pushlab demo --console` as a real process: the lab stays up after the run, the console holds
/// what the demo sent (its pushes, the virtual iPhone's runs, the collector's report), and
/// SIGTERM ends it with the run's exit status.
final class ConsoleDemoTests: XCTestCase {
    private func curlJSON(_ url: String) throws -> [String: Any] {
        let r = try ProcessRunner.run("/usr/bin/curl", ["-sS", "--max-time", "20", url])
        XCTAssertEqual(r.status, 0, "curl \(url): \(r.stderr)")
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(url): \(r.stdout)")
    }

    func testDemoConsoleServesTheDemosPushesDevicesAndReportUntilSIGTERM() throws {
        let demo = try ServerProcess(["demo", "--console"], timeout: 120) { $0.contains("\nconsole: ") }
        defer { demo.killHard() }
        XCTAssertTrue(demo.stdout.contains("demo passed"), demo.stdout)
        let line = try XCTUnwrap(demo.stdout.split(separator: "\n").first { $0.hasPrefix("console: ") })
        let console = String(line.dropFirst("console: ".count))
        XCTAssertTrue(console.hasPrefix("http://127.0.0.1:") && console.hasSuffix("/console"), console)

        // The log holds the demo's pushes, each with its CIO-Delivery-ID, the token shortened.
        let page = try curlJSON(console + "/api/pushes?limit=100")
        let rows = try XCTUnwrap(page["pushes"] as? [[String: Any]])
        let deliveries = Set(rows.compactMap { $0["deliveryID"] as? String })
        XCTAssertTrue(deliveries.isSuperset(of: ["demo-apns-1", "demo-fcm-1", "demo-killed-1"]), "\(deliveries)")
        XCTAssertEqual(Set(rows.compactMap { $0["platform"] as? String }), ["apns", "fcm"])
        // The demo's relay step: its 202 row and the target's result, beside the gateway's row.
        let relayed = rows.filter { $0["source"] as? String == "relay" }
        XCTAssertEqual(Set(relayed.compactMap { $0["status"] as? Int }), [202, 200], "\(rows)")
        XCTAssertFalse(rows.contains { ($0["target"] as? String)?.count ?? 0 > 12 }, "tokens are shortened: \(rows)")

        // The rich APNs push opens with what the iPhone did: preview, tap, bars.
        let rich = try XCTUnwrap(rows.first { $0["deliveryID"] as? String == "demo-apns-1" })
        let detail = try curlJSON(console + "/api/pushes/\(rich["id"] as? Int ?? 0)")
        let device = try XCTUnwrap(detail["device"] as? [String: Any], "\(detail)")
        XCTAssertEqual(device["device"] as? String, "iphone")
        let shown = (device["report"] as? [String: Any])?["notification"] as? [String: Any]
        XCTAssertEqual(shown?["title"] as? String, "pushlab demo")
        XCTAssertEqual(shown?["body"] as? String, "demo-apns-1")
        XCTAssertEqual((device["tap"] as? [String: Any])?["link"] as? String, "https://links.pushlab.io/products/42")
        XCTAssertEqual(((device["bars"] as? [String: Any])?["bars"] as? [Any])?.count, 2, "image download and metric request")
        let image = try ProcessRunner.run("/usr/bin/curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code}", console + "/api/images/\(rich["messageID"] as? String ?? "")"])
        XCTAssertEqual(image.stdout, "200", "the attached image is served for the thumbnail")

        // The device view lists the demo's iPhone with the killed push among its runs.
        let devices = try XCTUnwrap(try curlJSON(console + "/api/devices")["devices"] as? [[String: Any]])
        XCTAssertEqual(devices.first?["name"] as? String, "iphone")
        let killed = (devices.first?["notifications"] as? [[String: Any]] ?? []).first {
            (($0["report"] as? [String: Any])?["deliveryID"] as? String) == "demo-killed-1"
        }
        XCTAssertEqual((killed?["report"] as? [String: Any])?["killed"] as? Bool, true, "\(devices)")

        // The demo's Android phone: the shade notification with its channel and picture, the
        // delivered metric's fate with the pending store, and where a tap goes.
        let pixel = try XCTUnwrap(devices.first { $0["name"] as? String == "pixel" }, "\(devices)")
        XCTAssertEqual(pixel["platform"] as? String, "android")
        let run = try XCTUnwrap((pixel["notifications"] as? [[String: Any]])?.first?["android"] as? [String: Any], "\(pixel)")
        let received = try XCTUnwrap(run["report"] as? [String: Any])
        let shade = try XCTUnwrap(received["notification"] as? [String: Any], "\(received)")
        XCTAssertEqual(shade["title"] as? String, "pushlab demo on Android")
        XCTAssertEqual(shade["body"] as? String, "demo-android-1")
        XCTAssertFalse((shade["channelID"] as? String ?? "").isEmpty)
        XCTAssertEqual((shade["image"] as? [String: Any])?["shown"] as? Bool, true)
        XCTAssertEqual((received["metric"] as? [String: Any])?["fate"] as? String, "sent-once")
        XCTAssertEqual((received["metric"] as? [String: Any])?["storeEntriesAtEnd"] as? Int, 0)
        XCTAssertEqual((run["tap"] as? [String: Any])?["openedMetrics"] as? Int, 1)
        let fcmName = try XCTUnwrap((pixel["notifications"] as? [[String: Any]])?.first?["messageID"] as? String)
        let picture = try ProcessRunner.run("/usr/bin/curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code} %{content_type}",
                                                              console + "/api/images/" + (fcmName.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")])
        XCTAssertEqual(picture.stdout, "200 image/png", "the picture the Android SDK showed is served for the shade")

        // The demo's Retainza iPhone: its push, the handler that ran and the phone's timeline.
        let retainza = try XCTUnwrap(devices.first { $0["name"] as? String == "iphone-retainza" }, "\(devices)")
        XCTAssertEqual(retainza["sdkMode"] as? String, "retainza")
        let rz = try XCTUnwrap((retainza["notifications"] as? [[String: Any]])?.first?["retainza"] as? [String: Any], "\(retainza)")
        XCTAssertEqual(rz["messageID"] as? String, "demo-retainza-1")
        XCTAssertEqual(rz["title"] as? String, "pushlab demo on Retainza")
        let timeline = (rz["timeline"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
        XCTAssertTrue(timeline.contains { $0.hasPrefix("handleFCMToken(") }, "\(timeline)")
        XCTAssertTrue(timeline.contains { $0.contains("arrived in the background") }, "\(timeline)")

        // The metrics tab is the demo's report: five delivered (iPhone 4 — one recovered at launch, one sent by the relay; Android 1), two opened.
        let report = try XCTUnwrap(try curlJSON(console + "/api/metrics")["report"] as? [String: Any])
        let totals = try XCTUnwrap(report["totals"] as? [String: Any])
        XCTAssertEqual(totals["delivered"] as? Int, 5, "\(totals)")
        XCTAssertEqual(totals["recoveredAtLaunch"] as? Int, 1)
        XCTAssertEqual(totals["opened"] as? Int, 2)

        demo.process.terminate()
        XCTAssertTrue(ServerProcess.poll(timeout: 30) { !demo.process.isRunning }, "SIGTERM ends the demo")
        XCTAssertEqual(demo.exitStatus, 0, demo.stop())
        XCTAssertFalse(demo.exitedBySignal)
        XCTAssertTrue(demo.stderr.contains("signal 15"), demo.stderr)
    }
}
