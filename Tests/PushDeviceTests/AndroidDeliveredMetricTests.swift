import Foundation
import PushCore
import PushDevice
import PushHTTP
import TestSupport
import XCTest

/// The delivered metric of the Android SDK (docs/specs/android-side.md §4): the request byte
/// for byte, the pending store file, WorkManager's network constraint and retries, process
/// death, and the foreground hand-off — requests captured by a real HTTPS server.
final class AndroidDeliveredMetricTests: XCTestCase {
    var server: ImageTestServer!
    var client: HTTPClient!
    var filesDir: URL!

    override func setUp() async throws {
        server = try ImageTestServer()
        client = try HTTPClient(configuration: HTTPClientConfiguration(caFile: Fixtures.caFile))
        filesDir = Fixtures.temporaryDirectory("android-files")
    }

    override func tearDown() async throws {
        await client.shutdown()
        await server.stop()
        try? FileManager.default.removeItem(at: filesDir)
    }

    func run(_ conditions: AndroidConditions, mode: AndroidSDKMode = .cioAndroid, workManager: Bool = true,
             id: String = "dlv-1", token: String = "tok-1", base: String? = nil) async throws -> AndroidDeliveredReport {
        var p = try AndroidAppProfile.load(path: Fixtures.path("payloads/apps/android-demo.json"))
        p.metricsBaseURL = base ?? server.baseURL
        p.sdkMode = mode
        p.workManagerAvailable = workManager
        let store = try AndroidPendingDeliveryStore(filesDir: filesDir)
        return await AndroidDeliveredMetric(profile: p, transport: client, store: store, conditions: conditions)
            .run(deliveryID: id, deliveryToken: token)
    }

    var tracks: [ServerRequest] { server.metricRequests.filter { $0.path == "/v1/track" } }
    var batches: [ServerRequest] { server.metricRequests.filter { $0.path == "/v1/b" } }
    var storeFile: URL { filesDir.appendingPathComponent("cio_pending_push_delivery.json") }

    func testRequestIsTheSDKsByteForByte() async throws {
        let report = try await run(AndroidConditions(horizonMs: 10_000), id: "RPILAgUBcRhIBqSf", token: "fcm:tok/with+slash")
        XCTAssertEqual(report.fate, .sentOnce)
        let r = try XCTUnwrap(tracks.first)
        XCTAssertEqual(String(decoding: r.body, as: UTF8.self),
                       #"{"anonymousId":"RPILAgUBcRhIBqSf","properties":{"recipient":"fcm:tok\/with+slash","metric":"delivered","deliveryId":"RPILAgUBcRhIBqSf"},"event":"Report Delivery Event"}"#)
        XCTAssertEqual(r.headers["user-agent"], "Android Client/4.19.0")
        XCTAssertEqual(r.headers["authorization"], "Basic " + Data("pushlab-demo-cdp-key:".utf8).base64EncodedString())
        XCTAssertEqual(r.headers["content-type"], "application/json; charset=utf-8")
    }

    func testNetworkOffThenOnSendsOnceAndEmptiesTheStore() async throws {
        let report = try await run(AndroidConditions(offline: [AndroidTimeWindow(startMs: 0, endMs: 60_000)], horizonMs: 120_000))
        XCTAssertEqual(report.fate, .sentOnce)
        XCTAssertEqual(report.requests.map(\.atMs), [60_000], "WorkManager waits for NetworkType.CONNECTED")
        XCTAssertEqual(tracks.count, 1)
        XCTAssertEqual(report.storeEntriesAtEnd, 0)
        XCTAssertEqual(String(decoding: try Data(contentsOf: storeFile), as: UTF8.self), "[]")
    }

    func testStillOfflineAtTheEndLeavesTheEntryInTheSDKsFileFormat() async throws {
        let report = try await run(AndroidConditions(offline: [AndroidTimeWindow(startMs: 0, endMs: 100_000)], horizonMs: 50_000),
                                   id: "d/1", token: "t\"1")
        XCTAssertEqual(report.fate, .pending)
        XCTAssertTrue(report.jobStillEnqueued)
        XCTAssertEqual(String(decoding: try Data(contentsOf: storeFile), as: UTF8.self), #"[{"deliveryId":"d/1","token":"t\"1"}]"#)
    }

    func testKilledBeforeSendingIsRecoveredAtForeground() async throws {
        // Doze holds the job; the process dies; the user opens the app: the hand-off cancels the
        // job, claims the entry and publishes it on the pipeline (/v1/b).
        let report = try await run(AndroidConditions(doze: [AndroidTimeWindow(startMs: 0, endMs: 3_600_000)], killAtMs: 1_000,
                                                     launchAtMs: 600_000, horizonMs: 3_000_000))
        XCTAssertEqual(report.fate, .sentOnce)
        XCTAssertEqual(report.requests.map(\.channel), [.pipeline])
        XCTAssertEqual(tracks.count, 0)
        XCTAssertEqual(batches.count, 1)
        let body = String(decoding: batches[0].body, as: UTF8.self)
        XCTAssertTrue(body.contains(#""metric":"delivered""#) && body.contains(#""deliveryId":"dlv-1""#), body)
        XCTAssertEqual(report.storeEntriesAtEnd, 0)
        XCTAssertFalse(report.jobStillEnqueued)
    }

    func testKilledAfterSendingOnTheDirectPathSendsTwice() async throws {
        // No WorkManager: the direct request reaches the server, the process dies before the
        // answer, the entry stays, and the next foreground hands it off again.
        let report = try await run(AndroidConditions(killAtMs: 150, launchAtMs: 10_000, requestMs: 200, horizonMs: 100_000), workManager: false)
        XCTAssertEqual(report.fate, .sentMoreThanOnce)
        XCTAssertEqual(report.requests.map(\.channel), [.direct, .pipeline])
        XCTAssertEqual(tracks.count, 1)
        XCTAssertEqual(batches.count, 1)
    }

    func testKilledAfterClaimBeforeTheRequestLeftLosesTheMetric() async throws {
        // The worker claims (removes) the entry before sending; the rerun finds nothing.
        let report = try await run(AndroidConditions(killAtMs: 50, launchAtMs: 60_000, requestMs: 200, horizonMs: 100_000))
        XCTAssertEqual(report.fate, .lost)
        XCTAssertEqual(tracks.count + batches.count, 0)
        XCTAssertTrue(report.timeline.contains { $0.event.contains("entry already gone") })
        // improved keeps the entry until a 2xx: the rerun sends it.
        let improved = try await run(AndroidConditions(killAtMs: 50, launchAtMs: 60_000, requestMs: 200, horizonMs: 100_000), mode: .improved, id: "dlv-2")
        XCTAssertEqual(improved.fate, .sentOnce)
        XCTAssertTrue(String(decoding: tracks[0].body, as: UTF8.self).hasSuffix(#","messageId":"delivered-dlv-2"}"#))
    }

    func testLegacyWorkerKilledAfterSendingSendsAgain() async throws {
        let report = try await run(AndroidConditions(killAtMs: 150, requestMs: 200, horizonMs: 100_000), mode: .cioAndroidLegacy)
        XCTAssertEqual(report.fate, .sentMoreThanOnce)
        XCTAssertEqual(tracks.count, 2)
        XCTAssertFalse(FileManager.default.fileExists(atPath: storeFile.path), "4.11–4.17 have no pending store")
    }

    func testServerErrorsAreRetriedWithWorkManagersBackoff() async throws {
        let dead = try ImageTestServer()
        let url = dead.baseURL
        await dead.stop()
        // Nothing listens there any more: every attempt fails to connect (an IOException).
        let report = try await run(AndroidConditions(horizonMs: 200_000), base: url)
        XCTAssertEqual(report.fate, .pending)
        XCTAssertEqual(report.requests.map(\.atMs), [0, 30_200, 90_400], "back-off 30 s, 60 s after each 200-ms attempt")
        XCTAssertEqual(report.storeEntriesAtEnd, 1, "re-appended after each failure")
    }

    func testPendingStoreKeepsAtMost100OldestDroppedFirst() throws {
        let store = try AndroidPendingDeliveryStore(filesDir: filesDir)
        for i in 0...100 { store.append(.init(deliveryId: "d\(i)", token: "t")) }
        let all = store.loadAll()
        XCTAssertEqual(all.count, 100)
        XCTAssertEqual(all.first?.deliveryId, "d1")
        XCTAssertTrue(store.claim("d50"))
        XCTAssertFalse(store.claim("d50"))
        try Data("not json".utf8).write(to: storeFile)
        XCTAssertEqual(store.loadAll(), [], "an unreadable file reads as empty")
        store.remove("nothing")
        XCTAssertEqual(String(decoding: try Data(contentsOf: storeFile), as: UTF8.self), "not json", "no write when nothing changed")
    }
}
