import Foundation
import PushCore
import PushGateway
import PushHTTP
import PushRelay
import TestSupport
import XCTest

/// A relay on a free loopback port with its queue in a temporary directory, sending to an
/// in-process gateway emulator whose devices the test registers; an HTTP/2 client (h2c, or
/// TLS when asked) talks to it.
final class RelayHarness: @unchecked Sendable {
    static let goodTokens = (0..<4).map { String(format: "%064x", 0xA000 + $0) }
    static let deadToken = String(format: "%064x", 0xDEAD)
    static let fcmToken = "fcmtoken" + String(repeating: "A", count: 8) + ":APA91b" + String(repeating: "x", count: 140)

    let directory: URL
    let gateway: Gateway
    let relay: Relay
    let client: HTTPClient
    let baseURL: String
    let key: String

    /// `extra` is spliced into relay.json's top level (e.g. `"queue": {"capacity": 2},`);
    /// `app` into the app object; `faults` is the emulator's fault plan; `accessLog` gets the
    /// relay's access-log lines.
    init(extra: String = "", app: String = "", tls: Bool = false, apnsURL: String? = nil, faults: FaultPlan = .none,
         accessLog: (@Sendable (String) -> Void)? = nil) async throws {
        directory = Fixtures.temporaryDirectory("relay")
        let devices = DeviceRegistry()
        for (i, token) in Self.goodTokens.enumerated() {
            devices.register(EmulatedDevice(name: "phone\(i)", apnsToken: token, bundleID: Fixtures.bundleID))
        }
        devices.register(EmulatedDevice(name: "android", platform: .android, fcmToken: Self.fcmToken, bundleID: Fixtures.bundleID,
                                        firebaseProject: Fixtures.fcmProjectID))
        devices.register(EmulatedDevice(name: "gone", apnsToken: Self.deadToken, bundleID: Fixtures.bundleID,
                                        unregisteredSince: Date(timeIntervalSince1970: 1_700_000_000)))
        var gatewayConfiguration = GatewayConfiguration(certificateFile: Fixtures.serverCert, privateKeyFile: Fixtures.serverKey)
        gatewayConfiguration.faultPlan = faults
        gateway = try Gateway(configuration: gatewayConfiguration,
                              keys: try GatewayKeys.developmentDefaults(certsDirectory: Fixtures.path("certs")), devices: devices)
        try gateway.start()
        let listen = tls ? #""listen": {"port": null, "tls_port": 0, "certificate": "certs/server.pem", "private_key": "certs/server.key"},"#
                         : #""listen": {"port": 0},"#
        let apnsOverride = apnsURL.map { #", "url": "\#($0)", "ca_file": "certs/ca.pem""# } ?? ""
        let json = """
            {
              \(listen)
              \(extra)
              "apps": {
                "demo": {
                  "target": "emulator",
                  "apns": {"key": "certs/AuthKey_PLDEVKEY01.p8", "key_id": "\(Fixtures.apnsKeyID)", "team_id": "\(Fixtures.apnsTeamID)",
                           "bundle_id": "\(Fixtures.bundleID)"\(apnsOverride)},
                  "fcm": {"service_account": "certs/fcm-service-account.json"}
                  \(app)
                },
                "other": {"apns": {"key": "certs/AuthKey_PLDEVKEY01.p8", "key_id": "\(Fixtures.apnsKeyID)", "team_id": "\(Fixtures.apnsTeamID)",
                                   "bundle_id": "io.pushlab.other"}, "target": "emulator"}
              }
            }
            """
        let config = try RelayConfig.parse(Array(json.utf8), source: "relay.json", baseDirectory: Fixtures.root.path)
        let emulator = EmulatorEndpoints(apnsURL: gateway.apnsURL ?? "", fcmURL: gateway.fcmURL ?? "", tokenURL: gateway.tokenURL ?? "",
                                         caFile: Fixtures.caFile)
        relay = try Relay(config: config, dataDirectory: directory.appendingPathComponent("data").path, emulator: emulator, accessLog: accessLog)
        try await relay.start()
        key = try await relay.keys.create(scope: .app("demo"), label: "tests").key
        if tls {
            client = try HTTPClient(configuration: HTTPClientConfiguration(caFile: Fixtures.caFile))
            baseURL = relay.addresses?.tlsURL?.replacingOccurrences(of: "127.0.0.1", with: "localhost") ?? ""
        } else {
            client = try HTTPClient(configuration: HTTPClientConfiguration(protocolMode: .h2cPriorKnowledge))
            baseURL = relay.addresses?.cleartextURL ?? ""
        }
    }

    func stop() async {
        await client.shutdown()
        await relay.stop()
        await gateway.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    func request(_ method: String, _ path: String, body: String? = nil, key: String? = nil, headers: HTTPHeaders = [:]) async throws -> HTTPResponse {
        var h = headers
        if let k = key ?? Optional(self.key), !k.isEmpty { h.add("authorization", "Bearer \(k)") }
        if body != nil { h.add("content-type", "application/json") }
        return try await client.send(HTTPRequest(method: method, url: baseURL + path, headers: h, body: Array((body ?? "").utf8)))
    }

    func json(_ response: HTTPResponse) throws -> JSONValue {
        try JSONDocument.parse(response.body).root
    }

    /// POSTs a native push and returns its id (fails the test unless 202).
    func push(_ body: String, headers: HTTPHeaders = [:], file: StaticString = #filePath, line: UInt = #line) async throws -> String {
        let response = try await request("POST", "/v1/apps/demo/pushes", body: body, headers: headers)
        XCTAssertEqual(response.status, 202, response.bodyText, file: file, line: line)
        return try json(response)["id"]?.stringValue ?? ""
    }

    /// The push's status after waiting for it to finish.
    /// The push's status once it finished: long polls of 10 s, up to six of them (a bound for a
    /// hung push, not a timing assertion: a loaded machine only makes it wait longer).
    func finished(_ id: String) async throws -> JSONValue {
        for attempt in 1...6 {
            let response = try await request("GET", "/v1/pushes/\(id)?wait=10s")
            XCTAssertEqual(response.status, 200, response.bodyText)
            let status = try json(response)
            if status["finished"]?.boolValue == true || response.status != 200 || attempt == 6 { return status }
        }
        fatalError("unreachable")
    }

    /// What the emulator accepted, per APNs token.
    func acceptedByEmulator() throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for record in try gateway.records.recent(limit: 10_000) where record.status == 200 {
            counts[record.token ?? "", default: 0] += 1
        }
        return counts
    }

    static func apnsBody(tokens: [String], alert: String = "Hi") -> String {
        #"{"apns": {"payload": {"aps": {"alert": "\#(alert)"}}}, "apns_tokens": [\#(tokens.map { "\"\($0)\"" }.joined(separator: ", "))]}"#
    }
}
