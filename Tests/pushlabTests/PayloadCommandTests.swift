import XCTest
import TestSupport

/// `pushlab payload` as a real process: its output is accepted by `pushlab validate`.
final class PayloadCommandTests: XCTestCase {
    private func buildThenValidate(_ args: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let built = try ProcessRunner.pushlab(["payload"] + args)
        XCTAssertEqual(built.status, 0, built.stderr, file: file, line: line)
        let checked = try ProcessRunner.pushlab(["validate", "--strict", "-"], stdin: built.stdout)
        XCTAssertEqual(checked.status, 0, checked.stdout, file: file, line: line)
        return built.stdout
    }

    func testRichAPNsPayloadValidates() throws {
        let out = try buildThenValidate(["--title", "Sale", "--body", "30% off", "--image", "https://cdn.example.com/a.png",
                                         "--link", "myapp://sale", "--delivery-id", "d1", "--delivery-token", "t1",
                                         "--badge", "1", "--sound", "default", "--data", "campaign=spring"])
        XCTAssertTrue(out.contains("\"mutable-content\": 1"), out)
        XCTAssertTrue(out.contains("\"CIO-Delivery-ID\": \"d1\""), out)
    }

    func testFCMMessageValidates() throws {
        let token = "dQw4w9WgXcQ:APA91bH" + String(repeating: "x_Y-z0", count: 24)
        let out = try buildThenValidate(["--fcm", "--token", token, "--title", "Sale", "--image", "https://cdn.example.com/a.png",
                                         "--delivery-id", "d1", "--delivery-token", "t1"])
        XCTAssertTrue(out.contains("\"message\""), out)
        _ = try buildThenValidate(["--fcm", "--topic", "news", "--push-type", "background", "--data", "k=v", "--validate-only"])
    }

    func testSimulatorFileAndMinifiedOutputValidate() throws {
        let out = try buildThenValidate(["--title", "Hi", "--simulator-bundle", "io.pushlab.demo", "--minify"])
        XCTAssertTrue(out.hasPrefix("{\"Simulator Target Bundle\":\"io.pushlab.demo\",\"aps\":"), out)
    }

    func testBadFlagValueIsExitTwoNamingTheFlag() throws {
        let r = try ProcessRunner.pushlab(["payload", "--title", "Hi", "--image", "http://cdn.example.com/a.png"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("--image: the image URL uses http://"), r.stderr)
        let mixup = try ProcessRunner.pushlab(["payload", "--fcm", "--token", String(repeating: "ab", count: 32), "--title", "Hi"])
        XCTAssertEqual(mixup.status, 2)
        XCTAssertTrue(mixup.stderr.contains("FCM needs the FCM registration token"), mixup.stderr)
    }
}
