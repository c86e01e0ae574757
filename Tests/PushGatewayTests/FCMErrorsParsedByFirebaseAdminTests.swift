import Foundation
import PushCore
import TestSupport
import XCTest

/// Every FCM error the emulator (`pushlab serve`) can answer, parsed by the real firebase-admin
/// SDK (in .venv) rather than by pushlab's own `FCMError`: the status, the FcmError code in the
/// body and the exception firebase-admin raises (docs/specs/fcm.md "Errors"). The answers come
/// from real requests, one per case (Peers/firebase_admin_errors.py).
final class FCMErrorsParsedByFirebaseAdminTests: XCTestCase {
    private struct Parsed: Decodable {
        var name: String
        var status: Int?
        var fcm_error_code: String?
        var exception: String?
        var code: String?
        var message: String?
    }

    private struct Expected {
        var status: Int
        var fcmErrorCode: String?
        var exception: String
        var code: String
    }

    private func run(serve arguments: [String], cases: [[String: Any]], in dir: URL) throws -> [String: Parsed] {
        let gateway = try ServerProcess(["serve", "--port", "0", "--h2c-port", "0", "--apns-port", "0"] + arguments) {
            $0.contains("quick start") || $0.contains("device(s)")
        }
        defer { gateway.stop() }
        let base = "https://127.0.0.1:\(try XCTUnwrap(gateway.port(after: "https://127.0.0.1:"), gateway.banner))"
        // The account's token_uri points at this gateway (firebase-admin gets its token there).
        let account = try Fixtures.fcmServiceAccount(tokenURI: base + "/token", in: dir)
        let casesJSON = String(decoding: try JSONSerialization.data(withJSONObject: cases), as: UTF8.self)
        try Fixtures.requireExecutable(Fixtures.python)
        let r = try ProcessRunner.run(Fixtures.python, [Fixtures.path("Tests/PushGatewayTests/Peers/firebase_admin_errors.py"), base, account, casesJSON],
                                      environment: ["REQUESTS_CA_BUNDLE": Fixtures.caFile, "SSL_CERT_FILE": Fixtures.caFile], timeout: 120)
        XCTAssertEqual(r.status, 0, "firebase-admin peer: \(r.stderr)")
        var parsed: [String: Parsed] = [:]
        for line in r.stdout.split(separator: "\n") {
            let p = try JSONDecoder().decode(Parsed.self, from: Data(line.utf8))
            parsed[p.name] = p
        }
        XCTAssertEqual(Set(parsed.keys), Set(cases.compactMap { $0["name"] as? String }), r.stdout + r.stderr)
        return parsed
    }

    private func check(_ parsed: [String: Parsed], _ expected: [String: Expected], file: StaticString = #filePath, line: UInt = #line) {
        for (name, want) in expected.sorted(by: { $0.key < $1.key }) {
            guard let got = parsed[name] else { XCTFail("no result for \(name)", file: file, line: line); continue }
            let label = "\(name): \(got.message ?? "")"
            XCTAssertEqual(got.status, want.status, label, file: file, line: line)
            XCTAssertEqual(got.fcm_error_code, want.fcmErrorCode, label, file: file, line: line)
            XCTAssertEqual(got.exception, want.exception, label, file: file, line: line)
            XCTAssertEqual(got.code, want.code, label, file: file, line: line)
        }
    }

    func testFirebaseAdminParsesEveryErrorTheEmulatorAnswers() throws {
        try Fixtures.requirePushlab()
        let dir = Fixtures.temporaryDirectory("fcm-errors")
        defer { try? FileManager.default.removeItem(at: dir) }
        let known = "known1:APA91b" + String(repeating: "Kq7", count: 40)
        let foreign = "foreign1:APA91b" + String(repeating: "Zx3", count: 40)
        let devices = dir.appendingPathComponent("devices.json")
        try Data(#"""
            {"devices": [
              {"name": "phone", "platform": "android", "fcmToken": "\#(known)", "bundleID": "io.pushlab.demo", "firebaseProject": "pushlab-dev"},
              {"name": "other", "platform": "android", "fcmToken": "\#(foreign)", "bundleID": "io.pushlab.demo", "firebaseProject": "other-project"}
            ]}
            """#.utf8).write(to: devices)

        // The checks of the send route, in their order (docs/gateway.md "FCM and OAuth").
        let checks = try run(serve: ["--devices", devices.path], cases: [
            ["name": "accepted", "token": known],
            ["name": "bad-bearer", "token": known, "bearer": "not-a-token-the-gateway-issued"],
            ["name": "other-project", "token": known, "project": "other-project"],
            ["name": "reserved-data-key", "token": known, "data": ["from": "x"]],
            ["name": "apns-token", "token": String(repeating: "ab", count: 32)],
            ["name": "unknown-token", "token": "unknown1:APA91b" + String(repeating: "Qw9", count: 40)],
            ["name": "sender-id-mismatch", "token": foreign],
        ], in: dir)
        XCTAssertEqual(checks["accepted"]?.status, 200, checks["accepted"]?.message ?? "")
        check(checks, [
            "bad-bearer": Expected(status: 401, fcmErrorCode: nil, exception: "UnauthenticatedError", code: "UNAUTHENTICATED"),
            "other-project": Expected(status: 403, fcmErrorCode: nil, exception: "PermissionDeniedError", code: "PERMISSION_DENIED"),
            "reserved-data-key": Expected(status: 400, fcmErrorCode: "INVALID_ARGUMENT", exception: "InvalidArgumentError", code: "INVALID_ARGUMENT"),
            "apns-token": Expected(status: 400, fcmErrorCode: "INVALID_ARGUMENT", exception: "InvalidArgumentError", code: "INVALID_ARGUMENT"),
            "unknown-token": Expected(status: 404, fcmErrorCode: "UNREGISTERED", exception: "UnregisteredError", code: "NOT_FOUND"),
            "sender-id-mismatch": Expected(status: 403, fcmErrorCode: "SENDER_ID_MISMATCH", exception: "SenderIdMismatchError", code: "PERMISSION_DENIED"),
        ])

        // The fault plan's answers, one per request in order (quick-start mode accepts the token).
        let route = "route=/v1/projects/{project}/messages:send"
        let token = "any1:APA91b" + String(repeating: "Mn5", count: 40)
        let faults = try run(serve: ["--fault", "\(route),requests=1-1,status=429", "--fault", "\(route),requests=2-2,status=500",
                                     "--fault", "\(route),requests=3-3,status=503",
                                     "--fault", "\(route),requests=4-4,status=401,reason=THIRD_PARTY_AUTH_ERROR"],
                             // A 401 makes the SDK's google-auth session refresh its token and send again, so the
                             // THIRD_PARTY_AUTH_ERROR answer is fetched with the SDK's token and parsed by its handler.
                             cases: [["name": "quota", "token": token], ["name": "internal", "token": token],
                                     ["name": "unavailable", "token": token], ["name": "third-party-auth", "token": token, "bearer": "sdk"],
                                     ["name": "after-faults", "token": token]],
                             in: dir)
        XCTAssertEqual(faults["after-faults"]?.status, 200, faults["after-faults"]?.message ?? "")
        check(faults, [
            "quota": Expected(status: 429, fcmErrorCode: "QUOTA_EXCEEDED", exception: "QuotaExceededError", code: "RESOURCE_EXHAUSTED"),
            "internal": Expected(status: 500, fcmErrorCode: "INTERNAL", exception: "InternalError", code: "INTERNAL"),
            "unavailable": Expected(status: 503, fcmErrorCode: "UNAVAILABLE", exception: "UnavailableError", code: "UNAVAILABLE"),
            "third-party-auth": Expected(status: 401, fcmErrorCode: "THIRD_PARTY_AUTH_ERROR", exception: "ThirdPartyAuthError", code: "UNAUTHENTICATED"),
        ])

        // Every FcmError code pushlab knows was answered and parsed above.
        let seen = Set((Array(checks.values) + Array(faults.values)).compactMap(\.fcm_error_code))
        XCTAssertEqual(Set(FCMErrorCode.allKnown.map(\.rawValue)).subtracting(seen), [], "FcmError codes no case provoked")
    }
}
