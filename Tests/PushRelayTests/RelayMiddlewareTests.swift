import Foundation
import PushCore
import PushHTTP
import Synchronization
import TestSupport
import XCTest
@testable import PushRelay

/// The relay's routes behind their middleware (Sources/PushRelay/API/Middleware): every API
/// route checks its key before its handler runs, refusals come in the API's own shape, and the
/// access log has one line per request without the query or the key.
final class RelayMiddlewareTests: XCTestCase {
    private var relay: RelayHarness!

    override func tearDown() async throws {
        await relay?.stop()
        relay = nil
    }

    func testEveryAPIRouteRefusesARequestWithoutAKeyBeforeItsHandlerRuns() async throws {
        relay = try await RelayHarness()
        let routes: [(String, String)] = [
            ("POST", "/v1/apps/demo/pushes"), ("GET", "/v1/pushes/p_x"), ("GET", "/v1/apps/demo/deliveries"),
            ("GET", "/v1/apps/demo/invalid-tokens"), ("GET", "/v1/admin/config"), ("GET", "/v1/admin/queue"), ("GET", "/v1/cluster"),
            ("GET", "/metrics"), ("POST", "/gorush/demo/api/push"), ("GET", "/gorush/demo/api/stat/app"), ("GET", "/gorush/demo/api/stat/go"),
            ("GET", "/gorush/demo/healthz"), ("GET", "/gorush/demo/version"), ("GET", "/gorush/demo"),
        ]
        for (method, path) in routes {
            let response = try await relay.request(method, path, body: method == "POST" ? "{}" : nil, key: "")
            XCTAssertEqual(response.status, 401, "\(method) \(path): \(response.bodyText)")
            XCTAssertEqual(try relay.json(response)["field"]?.stringValue, "header Authorization", "\(method) \(path)")
        }
        let depth = try await relay.relay.service.queue.depth()
        XCTAssertEqual(depth.waiting + depth.claimed + depth.finished, 0, "nothing was queued")
        // An app key on an admin route: 403, not the route's answer.
        for path in ["/v1/admin/config", "/v1/admin/queue", "/v1/cluster", "/metrics"] {
            let response = try await relay.request("GET", path)
            XCTAssertEqual(response.status, 403, "\(path): \(response.bodyText)")
        }
    }

    func testTheSameRefusalComesInTheNativeShapeAndInGorushsShape() async throws {
        relay = try await RelayHarness()
        let native = try await relay.request("GET", "/v1/apps/nope/deliveries", key: try await relay.relay.keys.create(scope: .admin, label: nil).key)
        XCTAssertEqual(native.status, 404)
        XCTAssertTrue(native.bodyText.hasPrefix(#"{"error":"unknown_app","field":"path app","message":"no app 'nope' in relay.json","fix":"#),
                      native.bodyText)
        XCTAssertNil(native.headers["x-gorush-version"])
        let gorush = try await relay.request("POST", "/gorush/demo/api/push", body: #"{"notifications": 3}"#)
        XCTAssertEqual(gorush.status, 400)
        XCTAssertTrue(gorush.bodyText.hasPrefix(#"{"code":400,"message":"#), gorush.bodyText)
        XCTAssertTrue(gorush.bodyText.contains(#""error":"#) && gorush.bodyText.contains(#""fix":"#), gorush.bodyText)
        XCTAssertEqual(gorush.headers["x-gorush-version"], "pushlab-relay")
        let refused = relay.relay.service.metrics.prometheusText(depth: nil)
        XCTAssertTrue(refused.contains(#"app="demo""#) && refused.contains("refused"), "the gorush refusal is counted under its app")
    }

    func testAccessLogWritesOneLinePerRequestWithoutQueryOrKey() async throws {
        let lines = Mutex<[String]>([])
        relay = try await RelayHarness(accessLog: { line in lines.withLock { $0.append(line) } })
        let id = try await relay.push(RelayHarness.apnsBody(tokens: [RelayHarness.goodTokens[0]]))
        _ = try await relay.request("GET", "/v1/pushes/\(id)?wait=5s&results=false")
        _ = try await relay.request("GET", "/v1/admin/queue", key: "")
        let written = lines.withLock { $0 }
        XCTAssertEqual(written.count, 3, "\(written)")
        XCTAssertTrue(written[0].hasPrefix("POST /v1/apps/demo/pushes 202 "), written[0])
        XCTAssertTrue(written[1].hasPrefix("GET /v1/pushes/\(id) 200 "), written[1])
        XCTAssertTrue(written[2].hasPrefix("GET /v1/admin/queue 401 "), written[2])
        XCTAssertFalse(written.joined().contains("wait="), "no query")
        XCTAssertFalse(written.joined().contains(relay.key), "no API key")
    }
}
