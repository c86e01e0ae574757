import Foundation
import PushAuth
import PushCore
import PushHTTP
import TestSupport
@testable import PushGateway

/// A gateway on free ports with the dev keys, a manual clock and a recording sink.
final class GatewayHarness: @unchecked Sendable {
    let gateway: Gateway
    let clock: ManualTimeSource
    let sink = RecordingSink()
    let apnsKey: PrivateKey
    static let devToken = String(repeating: "ab", count: 32)

    init(devices: [EmulatedDevice] = [], configure: (inout GatewayConfiguration) -> Void = { _ in },
         extraKeys: (GatewayKeys) throws -> Void = { _ in }) throws {
        clock = ManualTimeSource(Date())
        var config = GatewayConfiguration(certificateFile: Fixtures.serverCert, privateKeyFile: Fixtures.serverKey)
        config.apnsCleartextPort = 0
        config.fcmCleartextPort = 0
        configure(&config)
        let keys = try GatewayKeys.developmentDefaults(certsDirectory: Fixtures.path("certs"))
        try extraKeys(keys)
        gateway = try Gateway(configuration: config, keys: keys, devices: DeviceRegistry(devices: devices), sink: sink, time: clock)
        try gateway.start()
        apnsKey = try PrivateKey(contentsOfFile: Fixtures.apnsKey)
    }

    func stop() async { await gateway.stop() }

    /// A provider token signed with the dev key (or `key`), issued at `iat` (default: now).
    func providerToken(keyID: String = Fixtures.apnsKeyID, teamID: String = Fixtures.apnsTeamID,
                       iat: Date? = nil, key: PrivateKey? = nil) throws -> String {
        let issued = Int64((iat ?? clock.now).timeIntervalSince1970)
        return try JWT.sign(header: JWTHeader(alg: .es256, kid: keyID), claims: JWTClaims(iss: teamID, iat: issued), key: key ?? apnsKey)
    }

    var apnsBase: String { gateway.apnsURL! }
    var googleBase: String { gateway.fcmURL! }
}

/// Collects what the gateway delivered.
final class RecordingSink: PushDeliverySink, @unchecked Sendable {
    private var pushes: [AcceptedPush] = []
    private var androidPushes: [AcceptedPush] = []
    private let lock = NSLock()
    func deliver(_ push: AcceptedPush) { lock.withLock { pushes.append(push) } }
    func deliverToAndroid(_ push: AcceptedPush) { lock.withLock { androidPushes.append(push) } }
    var delivered: [AcceptedPush] { lock.withLock { pushes } }
    /// FCM messages for devices registered as `android`.
    var deliveredToAndroid: [AcceptedPush] { lock.withLock { androidPushes } }
}

/// One request for `curl`, the independent client.
struct CurlRequest {
    var method = "POST"
    var url: String
    var headers: [(String, String)] = []
    var body: String? = nil
}

struct CurlResponse {
    var status: Int
    var body: String
    var headers: [String: String]
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:] }
    var reason: String? { json["reason"] as? String }
}

enum Curl {
    /// Runs every request in ONE curl process (`--next`), so they share a connection when the
    /// protocol allows — the per-connection token rules need that.
    static func run(_ requests: [CurlRequest], http2: Bool = true) throws -> [CurlResponse] {
        let dir = Fixtures.temporaryDirectory("curl")
        defer { try? FileManager.default.removeItem(at: dir) }
        var args: [String] = []
        for (i, r) in requests.enumerated() {
            if i > 0 { args.append("--next") }
            args += ["-s", http2 ? "--http2" : "--http1.1", "--cacert", Fixtures.caFile, "-X", r.method,
                     "-o", dir.appendingPathComponent("\(i).body").path, "-D", dir.appendingPathComponent("\(i).head").path,
                     "-w", "%{http_code}\n"]
            for (k, v) in r.headers { args += ["-H", "\(k): \(v)"] }
            if let body = r.body {
                let f = dir.appendingPathComponent("\(i).req")
                try Data(body.utf8).write(to: f)
                args += ["--data-binary", "@" + f.path]
            }
            args.append(r.url)
        }
        let result = try ProcessRunner.run("/usr/bin/curl", args)
        let codes = result.stdout.split(separator: "\n").compactMap { Int($0) }
        return requests.indices.map { i in
            let body = (try? String(contentsOf: dir.appendingPathComponent("\(i).body"), encoding: .utf8)) ?? ""
            let head = (try? String(contentsOf: dir.appendingPathComponent("\(i).head"), encoding: .utf8)) ?? ""
            var headers: [String: String] = [:]
            for line in head.split(separator: "\r\n") {
                let parts = line.split(separator: ":", maxSplits: 1)
                if parts.count == 2 { headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces) }
            }
            return CurlResponse(status: i < codes.count ? codes[i] : 0, body: body, headers: headers)
        }
    }

    static func one(_ request: CurlRequest, http2: Bool = true) throws -> CurlResponse { try run([request], http2: http2)[0] }
}
