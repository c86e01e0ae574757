import Foundation
import PushGateway
import TestSupport
import XCTest

/// `pushlab serve --console --console-profile NAME`: the send form can send with a profile's
/// credentials to Apple's and Google's servers. Here a second gateway emulator stands in for
/// them through the profile's override URLs (the tests never reach the internet); the routing,
/// the host the page is told, the log row and the absence of key material are what is checked.
final class ConsoleProfileSendTests: XCTestCase {
    static let fcmToken = "pRoFiLeStAnDiN:APA91b" + String(repeating: "standInRegistrationToken_-", count: 6)
    private var directory: URL!
    private var standIn: Gateway!

    override func setUp() async throws {
        directory = Fixtures.temporaryDirectory("console-profile")
        standIn = try Gateway(configuration: GatewayConfiguration(certificateFile: Fixtures.serverCert, privateKeyFile: Fixtures.serverKey),
                              keys: try GatewayKeys.developmentDefaults(certsDirectory: Fixtures.path("certs")), devices: DeviceRegistry())
        try standIn.start()
    }

    override func tearDown() async throws {
        await standIn.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// A config file with one profile; `apnsURL` nil means Apple's hosts.
    private func config(apnsURL: String?, fcmURL: String?) throws -> String {
        var apns: [String: Any] = ["key": Fixtures.apnsKey, "keyID": Fixtures.apnsKeyID, "teamID": Fixtures.apnsTeamID,
                                   "bundleID": Fixtures.bundleID, "environment": "sandbox", "caFile": Fixtures.caFile]
        apns["url"] = apnsURL
        var fcm: [String: Any] = ["serviceAccount": Fixtures.path("certs/fcm-service-account.json"), "caFile": Fixtures.caFile]
        fcm["url"] = fcmURL
        let path = directory.appendingPathComponent("config-\(UUID().uuidString.prefix(6)).json").path
        try JSONSerialization.data(withJSONObject: ["profiles": ["standin": ["apns": apns, "fcm": fcm]]]).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func serve(config: String) throws -> (ServerProcess, String) {
        let serve = try ServerProcess(["serve", "--console", "--port", "0", "--apns-port", "0", "--h2c-port", "0", "--quiet",
                                       "--console-profile", "standin", "--config", config]) { $0.contains("\nconsole: ") }
        let line = try XCTUnwrap(serve.stdout.split(separator: "\n").first { $0.hasPrefix("console: ") })
        return (serve, String(line.dropFirst("console: ".count)))
    }

    private func curl(_ args: [String]) throws -> (status: Int, json: [String: Any], text: String) {
        let r = try ProcessRunner.run("/usr/bin/curl", ["-sS", "--max-time", "30", "-w", "\n%{http_code}"] + args)
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let body = lines.dropLast().joined(separator: "\n")
        return (Int(lines.last ?? "") ?? 0, (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:], body)
    }

    private func send(_ console: String, _ form: [String: Any]) throws -> (status: Int, json: [String: Any], text: String) {
        let body = String(decoding: try JSONSerialization.data(withJSONObject: form), as: UTF8.self)
        return try curl(["-X", "POST", "-H", "content-type: application/json", "-d", body, console + "/api/send"])
    }

    func testTheFormSendsWithTheProfileToItsHostsAndSaysWhichHost() throws {
        let apnsURL = try XCTUnwrap(standIn.apnsURL), fcmURL = try XCTUnwrap(standIn.fcmURL)
        let (serve, console) = try serve(config: try config(apnsURL: apnsURL, fcmURL: fcmURL))
        defer { serve.stop() }

        let status = try curl([console + "/api/status"])
        let targets = try XCTUnwrap(status.json["targets"] as? [[String: Any]], status.text)
        XCTAssertEqual(Set(targets.compactMap { $0["id"] as? String }), ["lab", "profile"])
        let profile = try XCTUnwrap(targets.first { $0["id"] as? String == "profile" })
        XCTAssertEqual(profile["label"] as? String, "profile standin")
        XCTAssertEqual(profile["apnsURL"] as? String, apnsURL)
        XCTAssertEqual(profile["fcmURL"] as? String, fcmURL)
        XCTAssertEqual(profile["topic"] as? String, Fixtures.bundleID)
        XCTAssertEqual(profile["real"] as? Bool, false, "an override URL is not Apple's or Google's server")
        for secret in ["PRIVATE KEY", "private_key", ".p8", "fcm-service-account"] {
            XCTAssertFalse(status.text.contains(secret), "the page is never told about \(secret): \(status.text)")
        }

        // APNs: the push goes to the stand-in, not to this lab's gateway, and the log shows it.
        let token = String(repeating: "5a", count: 32)
        let apns = try send(console, ["target": "profile", "platform": "apns", "token": token,
                                      "payload": #"{"aps":{"alert":"to the stand-in","mutable-content":1},"CIO-Delivery-ID":"dlv-profile-1","CIO-Delivery-Token":"t"}"#])
        XCTAssertEqual(apns.status, 200, apns.text)
        XCTAssertEqual(apns.json["outcome"] as? String, "accepted", apns.text)
        XCTAssertEqual(apns.json["host"] as? String, apnsURL)
        let apnsID = try XCTUnwrap(apns.json["id"] as? String)
        standIn.records.flush()
        let atStandIn = try standIn.records.recent(limit: 100)
        XCTAssertTrue(atStandIn.contains { $0.messageID == apnsID && $0.payload.contains("to the stand-in") }, "the stand-in got the push")
        let logged = try curl([console + "/api/pushes?q=\(apnsID)"]).json["pushes"] as? [[String: Any]] ?? []
        XCTAssertEqual(logged.map { $0["source"] as? String }, ["console"], "logged once, as the console's send (the lab's gateway never saw it)")
        XCTAssertEqual(logged.first?["deliveryID"] as? String, "dlv-profile-1")
        XCTAssertEqual(logged.first?["app"] as? String, Fixtures.bundleID, "the topic defaults to the profile's bundle id")

        // FCM through the profile's service account (OAuth at the stand-in's token endpoint).
        let fcm = try send(console, ["target": "profile", "platform": "fcm",
                                     "payload": #"{"message":{"token":"\#(Self.fcmToken)","notification":{"title":"fcm to the stand-in"}}}"#])
        XCTAssertEqual(fcm.json["outcome"] as? String, "accepted", fcm.text)
        XCTAssertEqual(fcm.json["host"] as? String, fcmURL)
        standIn.records.flush()
        XCTAssertTrue(try standIn.records.recent(limit: 100).contains { $0.service == .fcm && $0.payload.contains("fcm to the stand-in") })

        // The lab target still goes to this lab's own gateway; an unknown target is a 400 naming it.
        let lab = try send(console, ["platform": "apns", "token": token, "topic": Fixtures.bundleID, "payload": #"{"aps":{"alert":"to the lab"}}"#])
        XCTAssertEqual(lab.json["outcome"] as? String, "accepted", lab.text)
        XCTAssertNotEqual(lab.json["host"] as? String, apnsURL)
        let unknown = try send(console, ["target": "prod", "platform": "apns", "token": token, "payload": "{}"])
        XCTAssertEqual(unknown.status, 400)
        XCTAssertEqual(unknown.json["field"] as? String, "/target")
    }

    func testWithoutAnOverrideTheProfileNamesApplesAndGooglesHostsAsReal() throws {
        // Building the clients contacts nothing; only the status is read.
        let (serve, console) = try serve(config: try config(apnsURL: nil, fcmURL: nil))
        defer { serve.stop() }
        let targets = try curl([console + "/api/status"]).json["targets"] as? [[String: Any]] ?? []
        let profile = try XCTUnwrap(targets.first { $0["id"] as? String == "profile" }, "\(targets)")
        XCTAssertEqual(profile["apnsURL"] as? String, "https://api.sandbox.push.apple.com:443")
        XCTAssertEqual(profile["apnsEnvironment"] as? String, "sandbox")
        XCTAssertEqual(profile["fcmURL"] as? String, "https://fcm.googleapis.com")
        XCTAssertEqual(profile["real"] as? Bool, true)
    }

    func testAProfileThatDoesNotExistIsAUsageError() throws {
        let r = try ProcessRunner.pushlab(["serve", "--console", "--port", "0", "--apns-port", "0", "--h2c-port", "0",
                                           "--console-profile", "nope", "--config", try config(apnsURL: nil, fcmURL: nil)], timeout: 30)
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("no profile named 'nope'") && r.stderr.contains("standin"), r.stderr)
    }
}
