import Foundation
import PushCore
import PushGateway
import PushHTTP
import PushRedis
import PushRelay
import TestSupport
import XCTest

/// FCM's quota is per Firebase project (docs/specs/fcm.md), so apps that send to one project
/// spend from one budget — on Redis, one bucket for every app and every node.
final class RelayFCMProjectBudgetTests: XCTestCase {
    /// Apps `a` and `b` share project pushlab-dev, whose budget holds one send a minute; app `c`
    /// is on another project. `a`'s push spends the project's only send; `b`'s push is then held
    /// (while `c`'s, queued after it, goes out), and goes out once the shared bucket is refilled.
    func testAppsOnOneFirebaseProjectShareOneBudget() async throws {
        let redis = try RedisServer()
        defer { redis.stop() }
        let directory = Fixtures.temporaryDirectory("relay-fcm-project")
        defer { try? FileManager.default.removeItem(at: directory) }
        let devices = DeviceRegistry()
        let tokens = (0..<3).map { "fcmtoken\($0)" + String(repeating: "B", count: 7) + ":APA91b" + String(repeating: "x", count: 140) }
        for (i, token) in tokens.enumerated() {
            devices.register(EmulatedDevice(name: "android\(i)", platform: .android, fcmToken: token, bundleID: Fixtures.bundleID,
                                            firebaseProject: Fixtures.fcmProjectID))
        }
        let gateway = try Gateway(configuration: GatewayConfiguration(certificateFile: Fixtures.serverCert, privateKeyFile: Fixtures.serverKey),
                                  keys: try GatewayKeys.developmentDefaults(certsDirectory: Fixtures.path("certs")), devices: devices)
        try gateway.start()
        func app(_ extra: String) -> String {
            #"{"target": "emulator", "fcm": {"service_account": "certs/fcm-service-account.json", "project_rate_per_minute": 2\#(extra)}}"#
        }
        let json = #"{"listen": {"port": 0}, "apps": {"a": \#(app("")), "b": \#(app("")), "c": \#(app(#", "project_id": "another-project""#))}}"#
        let config = try RelayConfig.parse(Array(json.utf8), source: "relay.json", baseDirectory: Fixtures.root.path)
        let queue = RedisPushQueue(endpoint: try RedisEndpoint(url: redis.url), configuration: .init(idleBlock: .milliseconds(100)), clientName: "n1")
        try await queue.prepare()
        let emulator = EmulatorEndpoints(apnsURL: gateway.apnsURL ?? "", fcmURL: gateway.fcmURL ?? "", tokenURL: gateway.tokenURL ?? "",
                                         caFile: Fixtures.caFile)
        let relay = try Relay(config: config, dataDirectory: directory.appendingPathComponent("data").path, queue: queue, cluster: queue, emulator: emulator)
        try await relay.start()
        let key = try await relay.keys.create(scope: .admin, label: "tests").key
        let client = try HTTPClient(configuration: HTTPClientConfiguration(protocolMode: .h2cPriorKnowledge))
        let base = relay.addresses?.cleartextURL ?? ""
        func request(_ method: String, _ path: String, body: String = "") async throws -> JSONValue {
            var headers: HTTPHeaders = [:]
            headers.add("authorization", "Bearer \(key)")
            if !body.isEmpty { headers.add("content-type", "application/json") }
            let response = try await client.send(HTTPRequest(method: method, url: base + path, headers: headers, body: Array(body.utf8)))
            XCTAssertLessThan(response.status, 300, response.bodyText)
            return try JSONDocument.parse(response.body).root
        }
        func push(_ app: String, _ token: String) async throws -> String {
            let body = #"{"fcm": {"message": {"notification": {"title": "t", "body": "b"}}}, "targets": [{"fcm": "\#(token)"}]}"#
            return try await request("POST", "/v1/apps/\(app)/pushes", body: body)["id"]?.stringValue ?? ""
        }

        let first = try await push("a", tokens[0])
        let a = try await request("GET", "/v1/pushes/\(first)?wait=10s")
        XCTAssertEqual(a["finished"]?.boolValue, true, "\(a)")
        let held = try await push("b", tokens[1])
        let other = try await push("c", tokens[2])
        let c = try await request("GET", "/v1/pushes/\(other)?wait=10s")
        XCTAssertEqual(c["finished"]?.boolValue, true, "another project's budget is its own: \(c)")
        let b = try await request("GET", "/v1/pushes/\(held)")
        XCTAssertEqual(b["finished"]?.boolValue, false, "app b's send waits for the project budget app a spent: \(b)")
        let budgetKeys = try redis.cli(["KEYS", "pushlab:budget:fcm:*"]).split(separator: "\n").map(String.init).sorted()
        XCTAssertEqual(budgetKeys, ["pushlab:budget:fcm:another-project", "pushlab:budget:fcm:\(Fixtures.fcmProjectID)"])

        // Refill the shared bucket: b's send goes out.
        _ = try redis.cli(["HSET", "pushlab:budget:fcm:\(Fixtures.fcmProjectID)", "tokens", "1"])
        let released = try await request("GET", "/v1/pushes/\(held)?wait=10s")
        XCTAssertEqual(released["finished"]?.boolValue, true, "\(released)")

        await client.shutdown()
        await relay.stop()
        await gateway.stop()
    }
}
