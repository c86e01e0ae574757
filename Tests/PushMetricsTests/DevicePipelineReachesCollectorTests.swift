import Foundation
import PushCore
import PushDevice
import PushHTTP
import PushMetrics
import XCTest

/// The device side's own event pipeline (PushDevice) uploads to the collector and every metric
/// is accepted and stored as sent: the two halves agree on bodies, auth and timestamps.
/// Requests go through the collector's `Router` in memory; CollectorOverRealServerTests covers
/// the wire.
final class DevicePipelineReachesCollectorTests: XCTestCase {
    /// An `HTTPTransport` that hands each request to a router, as the server would.
    struct RouterTransport: HTTPTransport {
        let router: Router
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let path = URLComponents(string: request.url)?.path ?? request.url
            let server = ServerRequest(method: request.method, path: path, headers: request.headers, body: request.body,
                                       connection: ConnectionContext(id: 1, isTLS: true, remoteAddress: "device", control: nil))
            guard case .found(let handler, _) = router.match(method: request.method, path: path) else {
                return HTTPResponse(status: 404)
            }
            guard let r = try await handler(server).response() else { throw HTTPClientError.protocolError("stream reset") }
            return HTTPResponse(status: r.status, headers: r.headers, body: r.body)
        }
    }

    func testRecoveredDeliveredAndOpenedThroughV1BAreStoredWithOriginalTimestamps() async throws {
        let h = try CollectorHarness()
        let pipeline = EventPipeline(configuration: .cdp(baseURL: "https://cdp.customer.io", writeKey: CollectorHarness.cdpKey),
                                     transport: RouterTransport(router: h.router), time: h.clock)
        let identity = PipelineIdentity(anonymousId: "anon-1", userId: "user-1")
        let deliveredAt = Date(timeIntervalSince1970: 1_775_126_768.123)
        await pipeline.enqueue([
            .deliveryMetric(.delivered, deliveryID: "RPILAgUBcRhIBqSfeiIwdIYJKxTY", recipient: "dtok-1", timestamp: deliveredAt, identity: identity),
            .deliveryMetric(.opened, deliveryID: "RPILAgUBcRhIBqSfeiIwdIYJKxTY", recipient: "dtok-1",
                            timestamp: deliveredAt + 5, identity: identity),
        ])
        let report = await pipeline.flush()
        XCTAssertEqual(report.sentEvents, 2)
        XCTAssertEqual(report.remaining, 0)

        let stored = try h.storedRows("SELECT route, metric, delivery_id, recipient, original_timestamp_text FROM metrics ORDER BY id")
        XCTAssertEqual(stored, [["/v1/b", "delivered", "RPILAgUBcRhIBqSfeiIwdIYJKxTY", "dtok-1", "2026-04-02T10:46:08.123Z"],
                                ["/v1/b", "opened", "RPILAgUBcRhIBqSfeiIwdIYJKxTY", "dtok-1", "2026-04-02T10:46:13.123Z"]])
        let metrics = try h.store.metrics()
        XCTAssertEqual(metrics[0].reported.originalTimestamp!.timeIntervalSince1970, deliveredAt.timeIntervalSince1970, accuracy: 0.001)
        XCTAssertEqual(try h.collector.report().totals.recoveredAtLaunch, 1)
    }

    func testLegacyPipelineUploadsAreStored() async throws {
        let h = try CollectorHarness()
        let pipeline = EventPipeline(configuration: .legacy(baseURL: "https://track-sdk.customer.io", siteID: CollectorHarness.siteID,
                                                            apiKey: CollectorHarness.legacyAPIKey),
                                     transport: RouterTransport(router: h.router), time: h.clock)
        await pipeline.enqueue(.deliveryMetric(.opened, deliveryID: "leg-1", recipient: "devtok-1",
                                               timestamp: Date(timeIntervalSince1970: 1_775_126_768),
                                               identity: PipelineIdentity(anonymousId: "a")))
        let report = await pipeline.flush()
        XCTAssertEqual(report.sentEvents, 1)
        XCTAssertEqual(try h.storedRows("SELECT route, metric, delivery_id, recipient, original_timestamp_text FROM metrics"),
                       [["/push/events", "opened", "leg-1", "devtok-1", "1775126768"]])
    }
}
