import Foundation
import PushCore
import PushMetrics
import XCTest

/// Every metric body the emulated devices write (CIOMetricBody for the iPhone's extension and
/// event pipeline, AndroidSDKContract for the Android SDK) is read back by the collector's parser
/// to the values that went in: one contract, two sides that cannot drift apart.
final class MetricBodyContractTests: XCTestCase {
    let id = "RPILAgUBcRhIBqSfeiIwdIYJKxTY"
    let token = "fcm:tok/with+slash"

    private func parse(_ route: CIOMetricRoute, _ body: [UInt8], file: StaticString = #filePath, line: UInt = #line) throws -> ParsedMetricRequest {
        do { return try MetricRequestParser.parse(route: route, body: body) } catch {
            XCTFail("\(route.path) refused \(String(decoding: body, as: UTF8.self)): \(error)", file: file, line: line)
            throw error
        }
    }

    func testTheExtensionsTrackBodiesParseToWhatWasWritten() throws {
        for messageId in [nil, CIOMetricBody.dedupKey(deliveryID: id)] {
            let body = CIOMetricBody.track(deliveryID: id, recipient: token, messageId: messageId).minifiedBytes()
            let parsed = try parse(.track, body)
            XCTAssertEqual(parsed.metrics.map(\.deliveryID), [id])
            XCTAssertEqual(parsed.metrics.map(\.metric), [.delivered])
            XCTAssertEqual(parsed.metrics.map(\.recipient), [token])
            XCTAssertNil(parsed.metrics.first?.originalTimestamp)
        }
    }

    func testAPipelineBatchParsesItemByItemWithItsTimestamps() throws {
        let t0 = Date(timeIntervalSince1970: 1_775_126_768.123)
        let items = [
            CIOMetricBody.batchItem(.delivered, deliveryID: "d-1", recipient: token, anonymousId: "anon", userId: nil,
                                    timestamp: t0, messageId: "m1"),
            CIOMetricBody.batchItem(.opened, deliveryID: "d-2", recipient: "tok-2", anonymousId: "anon", userId: "user-7",
                                    timestamp: t0.addingTimeInterval(60), messageId: "m2"),
        ]
        let body = CIOMetricBody.batch(items, sentAt: t0.addingTimeInterval(61), writeKey: "cdp-key").minifiedBytes()
        let parsed = try parse(.batch, body)
        XCTAssertEqual(parsed.writeKey, "cdp-key")
        XCTAssertEqual(parsed.ignoredEvents, 0)
        XCTAssertEqual(parsed.metrics.map(\.deliveryID), ["d-1", "d-2"])
        XCTAssertEqual(parsed.metrics.map(\.metric), [.delivered, .opened])
        XCTAssertEqual(parsed.metrics.map(\.recipient), [token, "tok-2"])
        XCTAssertEqual(parsed.metrics.map(\.batchIndex), [0, 1])
        XCTAssertEqual(parsed.metrics[0].originalTimestamp!.timeIntervalSince1970, t0.timeIntervalSince1970, accuracy: 0.001)
        XCTAssertEqual(parsed.metrics[1].originalTimestampText, ISO8601Timestamp.format(t0.addingTimeInterval(60)))
    }

    func testTheLegacyBodyParsesWithWholeSeconds() throws {
        for metric in [CIOMetric.delivered, .opened] {
            let body = CIOMetricBody.legacy(metric, deliveryID: id, deviceToken: "devtok", timestamp: Date(timeIntervalSince1970: 1_775_126_768.9))
            let parsed = try parse(.legacyEvents, body.minifiedBytes())
            XCTAssertEqual(parsed.metrics.map(\.metric), [metric])
            XCTAssertEqual(parsed.metrics.map(\.recipient), ["devtok"])
            XCTAssertEqual(parsed.metrics.first?.originalTimestamp?.timeIntervalSince1970, 1_775_126_768)
        }
    }

    func testTheAndroidSDKsBodiesParseToo() throws {
        for body in [AndroidSDKContract.metricBody(deliveryID: id, deliveryToken: token),
                     AndroidSDKContract.improvedMetricBody(deliveryID: id, deliveryToken: token)] {
            // org.json escapes "/" as "\/": the parser must still read the token as written.
            XCTAssertTrue(String(decoding: body, as: UTF8.self).contains(#"tok\/with"#))
            let parsed = try parse(AndroidSDKContract.trackRoute, body)
            XCTAssertEqual(parsed.metrics.map(\.deliveryID), [id])
            XCTAssertEqual(parsed.metrics.map(\.recipient), [token])
        }
    }
}
