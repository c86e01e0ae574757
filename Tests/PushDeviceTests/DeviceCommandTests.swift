import Foundation
import PushCore
import TestSupport
import XCTest

/// `pushlab nse` and `pushlab app launch` end to end: the built binary, a local HTTPS image and
/// metrics server, one App Group container shared by the two processes.
final class DeviceCommandTests: XCTestCase {
    private var server: ImageTestServer!
    private var dir: URL!

    override func setUp() async throws {
        server = try ImageTestServer()
        dir = Fixtures.temporaryDirectory("device-cli")
    }

    override func tearDown() async throws {
        await server.stop()
        try? FileManager.default.removeItem(at: dir)
    }

    private func write(_ name: String, _ text: String) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func testExtensionKilledAtZeroDoesNothingAndLaunchFindsNoRow() throws {
        let app = try write("app.json", #"{"bundleId":"io.pushlab.demo","extensionBundleId":"io.pushlab.demo.richpush","cdpApiKey":"k","metricsBaseURL":"\#(server.baseURL)"}"#)
        let payload = try write("push.json", TestPayloads.cio(image: server.baseURL + "/stall.png"))
        let container = dir.appendingPathComponent("group").path
        let nse = try ProcessRunner.pushlab(["nse", payload, "--app", app, "--container", container, "--ca-file", Fixtures.caFile,
                                             "--kill-at", "0", "--json"])
        XCTAssertEqual(nse.status, 1, nse.stderr)
        let report = try JSONParser().parse(nse.stdout).root
        XCTAssertEqual(report["killed"]?.boolValue, true)
        XCTAssertEqual(report["contentHandlerCalls"]?.numberValue?.intValue, 0)

        let launch = try ProcessRunner.pushlab(["app", "launch", "--app", app, "--container", container, "--ca-file", Fixtures.caFile, "--json"])
        XCTAssertEqual(launch.status, 0, launch.stdout + launch.stderr)
        let recovery = try JSONParser().parse(launch.stdout).root
        XCTAssertEqual(recovery["acknowledgedEvents"]?.numberValue?.intValue, 0, "killed at 0 ms: no row was written yet")
    }

    func testRichPushThenLaunchRecoversTheUnacknowledgedMetric() throws {
        let app = try write("app.json", #"{"bundleId":"io.pushlab.demo","extensionBundleId":"io.pushlab.demo.richpush","cdpApiKey":"k","metricsBaseURL":"https://localhost:1"}"#)
        let payload = try write("push.json", TestPayloads.cio(image: server.baseURL + "/banner.png"))
        let container = dir.appendingPathComponent("group").path
        let nse = try ProcessRunner.pushlab(["nse", payload, "--app", app, "--container", container, "--ca-file", Fixtures.caFile])
        XCTAssertEqual(nse.status, 1, "the metric host is down, so the run is incomplete")
        XCTAssertTrue(nse.stdout.contains("image: attached"), nse.stdout)
        XCTAssertTrue(nse.stdout.contains("still pending"), nse.stdout)

        let good = try write("app2.json", #"{"bundleId":"io.pushlab.demo","extensionBundleId":"io.pushlab.demo.richpush","cdpApiKey":"k","metricsBaseURL":"\#(server.baseURL)"}"#)
        let launch = try ProcessRunner.pushlab(["app", "launch", "--app", good, "--container", container, "--ca-file", Fixtures.caFile])
        XCTAssertEqual(launch.status, 0, launch.stdout + launch.stderr)
        XCTAssertTrue(launch.stdout.contains("RPILAgUBcRhIBqSfeiIwdIYJKxTY"), launch.stdout)
        XCTAssertEqual(server.metricRequests.map(\.path), ["/v1/b"])
    }

    func testBadProfileIsAUsageErrorNamingThePointer() throws {
        let app = try write("bad.json", #"{"bundleId":"a","extensionBundleId":"b","cdpApiKey":"k","sdkMode":"cio-5"}"#)
        let payload = try write("push.json", TestPayloads.cio(image: nil))
        let r = try ProcessRunner.pushlab(["nse", payload, "--app", app])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("/sdkMode"), r.stderr)
    }
}
