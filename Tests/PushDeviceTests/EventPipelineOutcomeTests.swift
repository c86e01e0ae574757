import Foundation
import PushCore
import PushHTTP
@testable import PushDevice
import XCTest

/// docs/specs/device-side.md §3 batch outcomes: 2xx delete; 400 delete without retry; 429, other 4xx,
/// 5xx and network errors keep the events for the next flush. Legacy: 5xx retried at
/// 0.1 … 3.2 s, then all requests pause for 5 minutes; 400 deletes.
final class EventPipelineOutcomeTests: XCTestCase {
    let identity = PipelineIdentity(anonymousId: "anon")

    func event(_ n: Int, _ date: Date) -> PipelineEvent {
        .deliveryMetric(.opened, deliveryID: "d\(n)", recipient: "tok\(n)", timestamp: date, identity: identity, messageId: "m\(n)")
    }

    func outcomeLeaves(_ reply: EventPipelineScriptedTransport.Reply) async -> (queued: Int, outcome: UploadOutcome?) {
        let clock = ManualTimeSource()
        let transport = EventPipelineScriptedTransport([reply])
        let pipeline = EventPipeline(configuration: .cdp(baseURL: "http://c.test", writeKey: "wk"), transport: transport, time: clock)
        await pipeline.enqueue([event(1, clock.now), event(2, clock.now)])
        let report = await pipeline.flush()
        return (await pipeline.queuedEvents.count, report.attempts.first?.outcome)
    }

    func testSuccessDeletesTheBatch() async {
        for status in [200, 202, 204] {
            let r = await outcomeLeaves(.status(status))
            XCTAssertEqual(r.queued, 0, "status \(status)")
            XCTAssertEqual(r.outcome, .accepted(status: status))
        }
    }

    func testBadRequestDeletesWithoutRetry() async {
        let r = await outcomeLeaves(.status(400))
        XCTAssertEqual(r.queued, 0)
        XCTAssertEqual(r.outcome, .rejected(status: 400))
    }

    func testRateLimitOtherClientErrorsServerErrorsAndNetworkFailuresKeepTheBatch() async {
        for status in [429, 401, 403, 404, 413, 500, 502, 503] {
            let r = await outcomeLeaves(.status(status))
            XCTAssertEqual(r.queued, 2, "status \(status)")
            XCTAssertEqual(r.outcome, .kept(.status(status)))
        }
        let r = await outcomeLeaves(.networkError)
        XCTAssertEqual(r.queued, 2)
        guard case .kept(.network) = r.outcome else { return XCTFail("network failure must keep: \(String(describing: r.outcome))") }
    }

    func testKeptEventsGoOutWithTheNextFlushTogetherWithNewOnes() async throws {
        let clock = ManualTimeSource()
        let transport = EventPipelineScriptedTransport([.status(500), .status(200)])
        let pipeline = EventPipeline(configuration: .cdp(baseURL: "http://c.test", writeKey: "wk"), transport: transport, time: clock)
        await pipeline.enqueue(event(1, clock.now))
        await pipeline.flush()
        await pipeline.enqueue(event(2, clock.now))
        clock.advance(by: 30)
        let report = await pipeline.tick()
        XCTAssertEqual(report?.attempts.first?.messageIds, ["m1", "m2"])
        let queued = await pipeline.queuedEvents
        XCTAssertTrue(queued.isEmpty)
    }

    func testLegacyModeSendsOneEventPerRequestWithSiteAuthAndUnixSeconds() async throws {
        let clock = ManualTimeSource()
        let transport = EventPipelineScriptedTransport()
        let pipeline = EventPipeline(configuration: .legacy(baseURL: "http://c.test", siteID: "site", apiKey: "key"),
                                     transport: transport, time: clock)
        await pipeline.enqueue(.deliveryMetric(.opened, deliveryID: "dlv", recipient: "devtok",
                                               timestamp: Date(timeIntervalSince1970: 1_775_126_768.9), identity: identity))
        await pipeline.flush()
        let request = try XCTUnwrap(transport.requests.first)
        XCTAssertEqual(request.url, "http://c.test/push/events")
        XCTAssertEqual(request.headers["authorization"], "Basic " + Data("site:key".utf8).base64EncodedString())
        let body = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
        XCTAssertEqual(body["delivery_id"] as? String, "dlv")
        XCTAssertEqual(body["device_id"] as? String, "devtok")
        XCTAssertEqual(body["event"] as? String, "opened")
        XCTAssertEqual(body["timestamp"] as? Int, 1_775_126_768)
    }

    func testLegacyRetriesServerErrorsOnTheDoublingScheduleThenPausesFiveMinutes() async {
        let clock = ManualTimeSource()
        let transport = EventPipelineScriptedTransport([.status(503)])
        let waits = WaitRecorder()
        let pipeline = EventPipeline(configuration: .legacy(baseURL: "http://c.test", siteID: "s", apiKey: "k"),
                                     transport: transport, time: clock, sleep: { await waits.record($0) })
        await pipeline.enqueue(event(1, clock.now))
        let first = await pipeline.flush()
        let recorded = await waits.all
        XCTAssertEqual(recorded, [0.1, 0.2, 0.4, 0.8, 1.6, 3.2])
        XCTAssertEqual(transport.requests.count, 7)
        XCTAssertEqual(first.attempts.first?.retries, 6)
        XCTAssertEqual(first.remaining, 1)

        // Paused: the next flush within 5 minutes sends nothing and keeps the event.
        clock.advance(by: 299)
        let paused = await pipeline.flush()
        XCTAssertEqual(transport.requests.count, 7)
        guard case .kept(.paused) = paused.attempts.first?.outcome else { return XCTFail("expected paused") }

        clock.advance(by: 1)
        transport.script([.status(200)])
        let resumed = await pipeline.flush()
        XCTAssertEqual(resumed.attempts.first?.outcome, .accepted(status: 200))
        XCTAssertEqual(resumed.remaining, 0)
    }

    func testLegacyBadRequestDeletesTheTaskAtOnce() async {
        let clock = ManualTimeSource()
        let transport = EventPipelineScriptedTransport([.status(400)])
        let pipeline = EventPipeline(configuration: .legacy(baseURL: "http://c.test", siteID: "s", apiKey: "k"),
                                     transport: transport, time: clock, sleep: { _ in })
        await pipeline.enqueue(event(1, clock.now))
        let report = await pipeline.flush()
        XCTAssertEqual(transport.requests.count, 1)
        XCTAssertEqual(report.attempts.first?.outcome, .rejected(status: 400))
        XCTAssertEqual(report.remaining, 0)
    }

    func testDryRunShowsTheRequestWithTheSecretRedacted() async throws {
        let clock = ManualTimeSource()
        let transport = EventPipelineScriptedTransport()
        let pipeline = EventPipeline(configuration: .cdp(baseURL: "http://c.test", writeKey: "secret-key"), transport: transport, time: clock)
        await pipeline.enqueue(event(1, clock.now))
        let pending = await pipeline.pendingRequests()
        XCTAssertEqual(transport.requests.count, 0)
        let request = try XCTUnwrap(pending.first)
        XCTAssertEqual(request.url, "http://c.test/v1/b")
        XCTAssertTrue(request.headers.contains(["authorization", "Basic <redacted>"]))
        XCTAssertFalse(request.headers.flatMap { $0 }.joined().contains(Data("secret-key:".utf8).base64EncodedString()))
    }
}

actor WaitRecorder {
    private(set) var all: [TimeInterval] = []
    func record(_ seconds: TimeInterval) { all.append(seconds) }
}
