import Foundation
import PushCore
import PushHTTP
@testable import PushDevice
import XCTest

/// docs/specs/device-side.md §3: batches flush at 20 events or every 30 s; the `/v1/b` envelope.
final class EventPipelineBatchingTests: XCTestCase {
    let identity = PipelineIdentity(anonymousId: "anon-1", userId: "user-7")

    func opened(_ n: Int, at date: Date) -> PipelineEvent {
        .deliveryMetric(.opened, deliveryID: "dlv-\(n)", recipient: "token-\(n)", timestamp: date, identity: identity,
                        messageId: "msg-\(n)")
    }

    func testNineteenEventsWaitAndTheTwentiethFlushesAll() async {
        let clock = ManualTimeSource()
        let transport = EventPipelineScriptedTransport()
        let pipeline = EventPipeline(configuration: .cdp(baseURL: "http://collector.test", writeKey: "wk"),
                                     transport: transport, time: clock)
        for i in 0..<19 {
            let report = await pipeline.enqueue(opened(i, at: clock.now))
            XCTAssertNil(report)
        }
        XCTAssertEqual(transport.requests.count, 0)
        let report = await pipeline.enqueue(opened(19, at: clock.now))
        XCTAssertEqual(report?.attempts.count, 1)
        XCTAssertEqual(report?.attempts.first?.messageIds.count, 20)
        XCTAssertEqual(transport.requests.count, 1)
        let queued = await pipeline.queuedEvents
        XCTAssertTrue(queued.isEmpty)
    }

    func testTimerFlushesOnlyAfterThirtySeconds() async {
        let clock = ManualTimeSource()
        let transport = EventPipelineScriptedTransport()
        let pipeline = EventPipeline(configuration: .cdp(baseURL: "http://collector.test", writeKey: "wk"),
                                     transport: transport, time: clock)
        await pipeline.enqueue(opened(1, at: clock.now))
        clock.advance(by: 29.9)
        let early = await pipeline.tick()
        XCTAssertNil(early)
        XCTAssertEqual(transport.requests.count, 0)
        clock.advance(by: 0.1)
        let report = await pipeline.tick()
        XCTAssertEqual(report?.sentEvents, 1)
        XCTAssertEqual(transport.requests.count, 1)
    }

    func testBatchEnvelopeCarriesWriteKeySentAtAndItemsAsTheSpecShows() async throws {
        let clock = ManualTimeSource(Date(timeIntervalSince1970: 1_775_126_768.25))  // 2026-04-02T10:46:08.250Z
        let transport = EventPipelineScriptedTransport()
        let pipeline = EventPipeline(configuration: .cdp(baseURL: "http://collector.test/", writeKey: "cdp-key"),
                                     transport: transport, time: clock)
        await pipeline.enqueue(opened(1, at: clock.now))
        await pipeline.enqueue(.deliveryMetric(.delivered, deliveryID: "dlv-2", recipient: "tok", timestamp: clock.now,
                                               identity: PipelineIdentity(anonymousId: "anon-1"), messageId: "msg-2"))
        clock.advance(by: 1)
        await pipeline.flush()

        let request = try XCTUnwrap(transport.requests.first)
        XCTAssertEqual(request.method, "POST")
        XCTAssertEqual(request.url, "http://collector.test/v1/b")
        XCTAssertEqual(request.headers["content-type"], "application/json; charset=utf-8")
        XCTAssertEqual(request.headers["authorization"], "Basic " + Data("cdp-key:".utf8).base64EncodedString())
        let body = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
        XCTAssertEqual(Set(body.keys), ["batch", "sentAt", "writeKey"])
        XCTAssertEqual(body["writeKey"] as? String, "cdp-key")
        XCTAssertEqual(body["sentAt"] as? String, "2026-04-02T10:46:09.250Z")
        let items = try XCTUnwrap(body["batch"] as? [[String: Any]])
        XCTAssertEqual(items.count, 2)
        XCTAssertEqual(Set(items[0].keys), ["type", "event", "properties", "anonymousId", "userId", "timestamp", "messageId"])
        XCTAssertEqual(items[0]["type"] as? String, "track")
        XCTAssertEqual(items[0]["event"] as? String, "Report Delivery Event")
        XCTAssertEqual(items[0]["properties"] as? [String: String],
                       ["metric": "opened", "deliveryId": "dlv-1", "recipient": "token-1"])
        XCTAssertEqual(items[0]["anonymousId"] as? String, "anon-1")
        XCTAssertEqual(items[0]["userId"] as? String, "user-7")
        XCTAssertEqual(items[0]["timestamp"] as? String, "2026-04-02T10:46:08.250Z")
        XCTAssertEqual(items[0]["messageId"] as? String, "msg-1")
        // No identified user: the key is left out rather than sent empty.
        XCTAssertNil(items[1]["userId"])
        XCTAssertEqual((items[1]["properties"] as? [String: String])?["metric"], "delivered")
    }

    func testRecoveredDeliveredEventsKeepTheirOriginalTimestampsAndOrder() async throws {
        let clock = ManualTimeSource()
        let transport = EventPipelineScriptedTransport()
        let pipeline = EventPipeline(configuration: .cdp(baseURL: "http://c.test", writeKey: "wk"), transport: transport, time: clock)
        let original = [Date(timeIntervalSince1970: 1_700_000_000), Date(timeIntervalSince1970: 1_700_000_060.5)]
        await pipeline.enqueue(original.enumerated().map { i, date in
            .deliveryMetric(.delivered, deliveryID: "d\(i)", recipient: "t", timestamp: date, identity: identity)
        })
        clock.advance(by: 3600)
        await pipeline.flush()
        let body = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(XCTUnwrap(transport.requests.first).body)) as? [String: Any])
        let stamps = (body["batch"] as? [[String: Any]])?.compactMap { $0["timestamp"] as? String }
        XCTAssertEqual(stamps, ["2023-11-14T22:13:20.000Z", "2023-11-14T22:14:20.500Z"])
    }

    func testLargeQueuesSplitIntoBatchesUnderTheByteLimit() async {
        let clock = ManualTimeSource()
        let transport = EventPipelineScriptedTransport()
        var configuration = EventPipelineConfiguration.cdp(baseURL: "http://c.test", writeKey: "wk")
        configuration.maxBatchBytes = 1_000
        configuration.flushAt = 1_000
        let pipeline = EventPipeline(configuration: configuration, transport: transport, time: clock)
        await pipeline.enqueue((0..<30).map { opened($0, at: clock.now) })
        let report = await pipeline.flush()
        XCTAssertGreaterThan(transport.requests.count, 1)
        XCTAssertTrue(transport.requests.allSatisfy { $0.body.count <= 1_000 })
        XCTAssertEqual(report.sentEvents, 30)
    }
}
