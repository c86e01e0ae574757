import Foundation
import PushCore
import PushHTTP
import PushRelay
import TestSupport
import XCTest

/// The upstream requests `pushlab relay` makes for gorush notifications, recorded by an
/// independent HTTP/2 server (Tests/Peers/upstream_recorder.py: Python `h2` over TLS, no code
/// shared with pushlab's emulator), compared field by field with the requests gorush v1.22.0
/// makes (read from its code: notify/notification_apns.go, notify/notification_fcm.go, the
/// apns2 payload builder and client headers, firebase-admin-go's message JSON;
/// docs/specs/relay.md §2, §5). Where the relay deliberately differs, the expectation says which
/// row of docs/relay.md's corrections table allows it. The error texts are gorush's
/// (router/server.go), and a refused request reaches the recorder not at all.
final class RelayGorushUpstreamTests: XCTestCase {
    private var recorder: ServerProcess?
    private var recordFile: URL!
    private var relay: Relay?
    private var client: HTTPClient?
    private var directory: URL!
    private var key = ""

    override func tearDown() async throws {
        await client?.shutdown()
        await relay?.stop()
        if let recorder { _ = recorder.stop() }
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    // MARK: - Harness

    private func start(maxNotifications: Int? = nil) async throws {
        directory = Fixtures.temporaryDirectory("gorush-upstream")
        recordFile = directory.appendingPathComponent("requests.jsonl")
        FileManager.default.createFile(atPath: recordFile.path, contents: nil)
        let peer = try ServerProcess([Fixtures.path("Tests/Peers/upstream_recorder.py"), Fixtures.serverCert, Fixtures.serverKey, recordFile.path],
                                     executable: Fixtures.python) { $0.contains("listening on ") }
        recorder = peer
        guard let port = peer.port(after: "listening on ") else { throw TestEnvironmentError("the recorder printed no port: \(peer.banner)") }
        let base = "https://127.0.0.1:\(port)"
        let limits = maxNotifications.map { #""limits": {"max_notifications": \#($0)},"# } ?? ""
        let json = """
            {"listen": {"port": 0}, \(limits)
             "apps": {"demo": {
               "apns": {"key": "certs/AuthKey_PLDEVKEY01.p8", "key_id": "\(Fixtures.apnsKeyID)", "team_id": "\(Fixtures.apnsTeamID)",
                        "bundle_id": "\(Fixtures.bundleID)", "url": "\(base)", "ca_file": "certs/ca.pem"},
               "fcm": {"service_account": "certs/fcm-service-account.json", "url": "\(base)", "token_url": "\(base)/token", "ca_file": "certs/ca.pem"}}}}
            """
        let config = try RelayConfig.parse(Array(json.utf8), source: "relay.json", baseDirectory: Fixtures.root.path)
        let relay = try Relay(config: config, dataDirectory: directory.appendingPathComponent("data").path)
        self.relay = relay
        try await relay.start()
        key = try await relay.keys.create(scope: .app("demo"), label: "tests").key
        client = try HTTPClient(configuration: HTTPClientConfiguration(protocolMode: .h2cPriorKnowledge))
    }

    /// POSTs to the gorush endpoint in sync mode: when it answers, every upstream request was made
    /// (and the recorder writes each one before answering it).
    private func post(_ body: String) async throws -> HTTPResponse {
        try await client!.send(HTTPRequest(method: "POST", url: (relay?.addresses?.cleartextURL ?? "") + "/gorush/demo/api/push?sync=true",
                                           headers: ["authorization": "Bearer \(key)", "content-type": "application/json"], body: Array(body.utf8)))
    }

    struct Recorded {
        var method: String
        var path: String
        var headers: [String: String]
        var body: String
        var json: JSONValue? { try? JSONDocument.parse(Array(body.utf8)).root }
    }

    private func recorded() throws -> [Recorded] {
        let text = try String(contentsOf: recordFile, encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            let v = try JSONDocument.parse(Array(line.utf8)).root
            var headers: [String: String] = [:]
            if case .object(let o)? = v["headers"] { for m in o.members { headers[m.key] = m.value.stringValue } }
            return Recorded(method: v["method"]?.stringValue ?? "", path: v["path"]?.stringValue ?? "", headers: headers, body: v["body"]?.stringValue ?? "")
        }
    }

    /// JSON with object keys sorted and numbers compared as doubles: the same JSON to a reader.
    static func canonical(_ v: JSONValue) -> String {
        switch v {
        case .object(let o):
            var last: [String: JSONValue] = [:]
            for m in o.members { last[m.key] = m.value }
            return "{" + last.keys.sorted().map { "\(JSONValue.string($0).minifiedString):\(canonical(last[$0]!))" }.joined(separator: ",") + "}"
        case .array(let a): return "[" + a.elements.map(canonical).joined(separator: ",") + "]"
        case .number(let n): return "\(n.doubleValue)"
        default: return v.minifiedString
        }
    }

    static func canonical(_ text: String) -> String {
        guard let v = try? JSONDocument.parse(Array(text.utf8)).root else { return "not JSON: \(text)" }
        return canonical(v)
    }

    // MARK: - APNs (platform 1)

    struct APNsCase {
        var field: String
        /// The notification's members other than `tokens` and `platform`.
        var notification: String
        /// The `apns-*` headers gorush sends (apns2 `setHeaders`).
        var gorushHeaders: [String: String]
        /// The payload gorush sends.
        var gorushPayload: String
        /// Where the relay's request differs from gorush's on purpose: the headers it sends
        /// instead and the corrections-table row that says why.
        var correction: (headers: [String: String], row: String)? = nil
        /// Extra tokens the notification reaches (gorush's `to`).
        var extraTokens: [String] = []
    }

    static let topicRow = "no `topic` with a `.p8` key"
    static let silentRow = "`content_available` alone (a silent push)"
    static let bundle = Fixtures.bundleID
    static let apnsID = "123e4567-e89b-12d3-a456-426614174000"

    static let apnsCases: [APNsCase] = [
        APNsCase(field: "message", notification: #""message": "Hello""#, gorushHeaders: [:], gorushPayload: #"{"aps":{"alert":"Hello"}}"#),
        APNsCase(field: "title + message", notification: #""title": "T", "message": "M""#, gorushHeaders: [:],
                 gorushPayload: #"{"aps":{"alert":{"title":"T","body":"M"}}}"#),
        APNsCase(field: "title", notification: #""title": "T""#, gorushHeaders: [:], gorushPayload: #"{"aps":{"alert":{"title":"T"}}}"#),
        APNsCase(field: "image (FCM only)", notification: #""message": "m", "image": "https://example.com/a.png""#, gorushHeaders: [:],
                 gorushPayload: #"{"aps":{"alert":"m"}}"#),
        APNsCase(field: "priority high", notification: #""message": "m", "priority": "high""#, gorushHeaders: ["apns-priority": "10"],
                 gorushPayload: #"{"aps":{"alert":"m"}}"#),
        APNsCase(field: "priority normal", notification: #""message": "m", "priority": "normal""#, gorushHeaders: ["apns-priority": "5"],
                 gorushPayload: #"{"aps":{"alert":"m"}}"#),
        APNsCase(field: "priority other", notification: #""message": "m", "priority": "urgent""#, gorushHeaders: [:],
                 gorushPayload: #"{"aps":{"alert":"m"}}"#),
        APNsCase(field: "content_available alone", notification: #""content_available": true"#, gorushHeaders: [:],
                 gorushPayload: #"{"aps":{"content-available":1}}"#,
                 correction: (["apns-push-type": "background", "apns-priority": "5", "apns-topic": bundle], silentRow)),
        APNsCase(field: "content_available with an alert", notification: #""content_available": true, "message": "m""#, gorushHeaders: [:],
                 gorushPayload: #"{"aps":{"alert":"m","content-available":1}}"#),
        APNsCase(field: "mutable_content", notification: #""mutable_content": true, "message": "m""#, gorushHeaders: [:],
                 gorushPayload: #"{"aps":{"alert":"m","mutable-content":1}}"#),
        APNsCase(field: "sound (string)", notification: #""sound": "ding.caf", "message": "m""#, gorushHeaders: [:],
                 gorushPayload: #"{"aps":{"alert":"m","sound":"ding.caf"}}"#),
        APNsCase(field: "sound (object)", notification: #""sound": {"critical": 1, "name": "alarm.caf", "volume": 0.5, "other": "x"}, "message": "m""#,
                 gorushHeaders: [:], gorushPayload: #"{"aps":{"alert":"m","sound":{"critical":1,"name":"alarm.caf","volume":0.5}}}"#),
        APNsCase(field: "name", notification: #""name": "alarm.caf", "message": "m""#, gorushHeaders: [:],
                 gorushPayload: #"{"aps":{"alert":"m","sound":{"critical":1,"name":"alarm.caf","volume":1}}}"#),
        APNsCase(field: "volume", notification: #""volume": 0.25, "message": "m""#, gorushHeaders: [:],
                 gorushPayload: #"{"aps":{"alert":"m","sound":{"critical":1,"name":"default","volume":0.25}}}"#),
        APNsCase(field: "sound + name", notification: #""sound": "ding.caf", "name": "alarm.caf", "volume": 0.75, "message": "m""#, gorushHeaders: [:],
                 gorushPayload: #"{"aps":{"alert":"m","sound":{"critical":1,"name":"alarm.caf","volume":0.75}}}"#),
        APNsCase(field: "data", notification: #""message": "m", "data": {"k": "v", "n": 1, "o": {"a": true}}"#, gorushHeaders: [:],
                 gorushPayload: #"{"aps":{"alert":"m"},"k":"v","n":1,"o":{"a":true}}"#),
        APNsCase(field: "topic", notification: #""message": "m", "topic": "com.example.other""#, gorushHeaders: ["apns-topic": "com.example.other"],
                 gorushPayload: #"{"aps":{"alert":"m"}}"#),
        APNsCase(field: "expiration", notification: #""message": "m", "expiration": 1900000000"#, gorushHeaders: ["apns-expiration": "1900000000"],
                 gorushPayload: #"{"aps":{"alert":"m"}}"#),
        APNsCase(field: "expiration 0", notification: #""message": "m", "expiration": 0"#, gorushHeaders: [:], gorushPayload: #"{"aps":{"alert":"m"}}"#),
        APNsCase(field: "apns_id", notification: #""message": "m", "apns_id": "\#(apnsID)""#, gorushHeaders: ["apns-id": apnsID],
                 gorushPayload: #"{"aps":{"alert":"m"}}"#),
        APNsCase(field: "collapse_id", notification: #""message": "m", "collapse_id": "order-42""#, gorushHeaders: ["apns-collapse-id": "order-42"],
                 gorushPayload: #"{"aps":{"alert":"m"}}"#),
        APNsCase(field: "push_type", notification: #""push_type": "voip", "data": {"call": "1"}"#, gorushHeaders: ["apns-push-type": "voip"],
                 gorushPayload: #"{"aps":{},"call":"1"}"#,
                 correction: (["apns-push-type": "voip", "apns-topic": bundle + ".voip"], topicRow)),
        APNsCase(field: "badge", notification: #""message": "m", "badge": 3"#, gorushHeaders: [:], gorushPayload: #"{"aps":{"alert":"m","badge":3}}"#),
        APNsCase(field: "badge 0", notification: #""message": "m", "badge": 0"#, gorushHeaders: [:], gorushPayload: #"{"aps":{"alert":"m","badge":0}}"#),
        APNsCase(field: "badge negative", notification: #""message": "m", "badge": -1"#, gorushHeaders: [:], gorushPayload: #"{"aps":{"alert":"m"}}"#),
        APNsCase(field: "category", notification: #""message": "m", "category": "MESSAGE""#, gorushHeaders: [:],
                 gorushPayload: #"{"aps":{"alert":"m","category":"MESSAGE"}}"#),
        APNsCase(field: "thread-id", notification: #""message": "m", "thread-id": "chat-1""#, gorushHeaders: [:],
                 gorushPayload: #"{"aps":{"alert":"m","thread-id":"chat-1"}}"#),
        APNsCase(field: "url-args", notification: #""message": "m", "url-args": ["a", "b"]"#, gorushHeaders: [:],
                 gorushPayload: #"{"aps":{"alert":"m","url-args":["a","b"]}}"#),
        APNsCase(field: "interruption_level", notification: #""message": "m", "interruption_level": "time-sensitive""#, gorushHeaders: [:],
                 gorushPayload: #"{"aps":{"alert":"m","interruption-level":"time-sensitive"}}"#),
        APNsCase(field: "alert (every key)", notification: #"""
                 "alert": {"title": "AT", "subtitle": "S", "body": "AB", "action": "A", "action-loc-key": "ALK", "launch-image": "L.png",
                           "loc-key": "LK", "loc-args": ["x"], "title-loc-key": "TLK", "title-loc-args": ["y"], "summary-arg": "SA", "summary-arg-count": 2}
                 """#, gorushHeaders: [:], gorushPayload: #"""
                 {"aps":{"alert":{"title":"AT","subtitle":"S","body":"AB","action":"A","action-loc-key":"ALK","launch-image":"L.png",
                  "loc-key":"LK","loc-args":["x"],"title-loc-key":"TLK","title-loc-args":["y"],"summary-arg":"SA","summary-arg-count":2}}}
                 """#),
        APNsCase(field: "title + alert.subtitle", notification: #""title": "T", "alert": {"subtitle": "S"}"#, gorushHeaders: [:],
                 gorushPayload: #"{"aps":{"alert":{"title":"T","subtitle":"S"}}}"#),
        APNsCase(field: "alert.title overrides title", notification: #""title": "T", "message": "M", "alert": {"title": "AT"}"#, gorushHeaders: [:],
                 gorushPayload: #"{"aps":{"alert":{"title":"AT","body":"M"}}}"#),
        APNsCase(field: "message + alert.subtitle", notification: #""message": "M", "alert": {"subtitle": "S"}"#, gorushHeaders: [:],
                 gorushPayload: #"{"aps":{"alert":{"subtitle":"S"}}}"#),
        APNsCase(field: "Live Activity update (content-state, event, timestamp, stale-date, dismissal-date)",
                 notification: #""push_type": "liveactivity", "content-state": {"eta": 5}, "event": "update", "timestamp": 1800000000, "stale-date": 1800000600, "dismissal-date": 1800000900"#,
                 gorushHeaders: ["apns-push-type": "liveactivity"],
                 gorushPayload: #"{"aps":{"content-state":{"eta":5},"event":"update","timestamp":1800000000,"stale-date":1800000600,"dismissal-date":1800000900}}"#,
                 correction: (["apns-push-type": "liveactivity", "apns-topic": bundle + ".push-type.liveactivity"], topicRow)),
        APNsCase(field: "Live Activity start (attributes-type, attributes)",
                 notification: #""push_type": "liveactivity", "event": "start", "timestamp": 1800000000, "content-state": {"eta": 5}, "attributes-type": "DeliveryAttributes", "attributes": {"order": "42"}, "alert": {"title": "Order", "body": "on its way"}"#,
                 gorushHeaders: ["apns-push-type": "liveactivity"],
                 gorushPayload: #"{"aps":{"alert":{"title":"Order","body":"on its way"},"event":"start","timestamp":1800000000,"content-state":{"eta":5},"attributes-type":"DeliveryAttributes","attributes":{"order":"42"}}}"#,
                 correction: (["apns-push-type": "liveactivity", "apns-topic": bundle + ".push-type.liveactivity"], topicRow)),
        APNsCase(field: "relevance-score", notification: #""message": "m", "relevance-score": 0.5"#, gorushHeaders: [:],
                 gorushPayload: #"{"aps":{"alert":"m","relevance-score":0.5}}"#),
        APNsCase(field: "to", notification: #""message": "m", "to": "\#(String(format: "%064x", 0xCAFE))""#, gorushHeaders: [:],
                 gorushPayload: #"{"aps":{"alert":"m"}}"#, extraTokens: [String(format: "%064x", 0xCAFE)]),
        APNsCase(field: "notif_id, retry (no upstream effect)", notification: #""message": "m", "notif_id": "n1", "retry": 3"#, gorushHeaders: [:],
                 gorushPayload: #"{"aps":{"alert":"m"}}"#),
        APNsCase(field: "FCM and Huawei fields (ignored on iOS)", notification: #"""
                 "message": "m", "apns": {"payload": {"aps": {"sound": "x"}}}, "android": {"priority": "high"}, "webpush": {"headers": {"TTL": "1"}},
                 "fcm_options": {"analytics_label": "l"}, "condition": "'a' in topics", "notification": {"title": "N"},
                 "app_id": "1", "app_secret": "s", "huawei_data": "{}", "huawei_collapse_key": 1, "huawei_ttl": "1s", "bi_tag": "b", "fast_app_target": 1
                 """#, gorushHeaders: [:], gorushPayload: #"{"aps":{"alert":"m"}}"#),
    ]

    func testEveryIOSFieldMakesTheAPNsRequestGorushMakes() async throws {
        try await start()
        let cases = Self.apnsCases
        let tokens = cases.indices.map { String(format: "%064x", 0xC000 + $0) }
        let notifications = zip(cases, tokens).map { c, token in #"{"tokens": ["\#(token)"], "platform": 1, \#(c.notification)}"# }
        let response = try await post(#"{"notifications": [\#(notifications.joined(separator: ",\n"))]}"#)
        XCTAssertEqual(response.status, 200, response.bodyText)
        XCTAssertTrue(response.bodyText.contains(#""logs":[]"#), "every target sent: \(response.bodyText)")
        let requests = try recorded()
        let apnsHeaders = ["apns-push-type", "apns-topic", "apns-id", "apns-collapse-id", "apns-priority", "apns-expiration"]
        for (c, token) in zip(cases, tokens) {
            for t in [token] + c.extraTokens {
                let matching = requests.filter { $0.path == "/3/device/\(t)" }
                XCTAssertEqual(matching.count, 1, "\(c.field): one request for \(t)")
                guard let r = matching.first else { continue }
                XCTAssertEqual(r.method, "POST", c.field)
                var expected = c.gorushHeaders
                if expected["apns-push-type"] == nil { expected["apns-push-type"] = "alert" }  // apns2 always sends one
                if let correction = c.correction {
                    for (k, v) in correction.headers { expected[k] = v }
                } else if expected["apns-topic"] == nil {
                    expected["apns-topic"] = Self.bundle  // corrections table: no `topic` with a `.p8` key
                }
                var got: [String: String] = [:]
                for name in apnsHeaders { got[name] = r.headers[name] }
                XCTAssertEqual(got, expected, "\(c.field): the apns-* headers (correction: \(c.correction?.row ?? Self.topicRow))")
                XCTAssertEqual(Self.canonical(r.body), Self.canonical(c.gorushPayload), "\(c.field): the payload")
                XCTAssertTrue(r.headers["authorization"]?.hasPrefix("bearer ") ?? false, "\(c.field): a provider token")
                XCTAssertEqual(r.headers["content-type"], "application/json", "\(c.field): gorush sends ...; charset=utf-8, listed in docs/relay.md")
            }
        }
        XCTAssertEqual(requests.count, tokens.count + cases.reduce(0) { $0 + $1.extraTokens.count }, "no other request reached APNs")
    }

    // MARK: - FCM (platform 2)

    struct FCMCase {
        var field: String
        var notification: String
        /// gorush's `message` (firebase-admin-go's JSON) for the first target, without the target.
        var gorushMessage: String
        /// The relay's message where it differs on purpose, and the table row.
        var correction: (message: String, row: String)? = nil
        /// Targets other than the token: ("topic", "news") etc.
        var otherTargets: [(String, String)] = []
        var withToken = true
    }

    static func fcmToken(_ i: Int) -> String {
        "fcm" + String(format: "%05d", i) + String(repeating: "B", count: 8) + ":APA91b" + String(repeating: "x", count: 140)
    }

    static let fcmCases: [FCMCase] = [
        FCMCase(field: "title + message", notification: #""title": "T", "message": "M""#, gorushMessage: #"{"notification":{"title":"T","body":"M"}}"#),
        FCMCase(field: "image", notification: #""title": "T", "image": "https://example.com/a.png""#,
                gorushMessage: #"{"notification":{"title":"T","image":"https://example.com/a.png"}}"#),
        FCMCase(field: "notification (title, body, image; other keys dropped; top-level title wins)",
                notification: #""title": "T", "notification": {"title": "NT", "body": "NB", "image": "https://example.com/n.png", "icon": "i"}"#,
                gorushMessage: #"{"notification":{"title":"T","body":"NB","image":"https://example.com/n.png"}}"#),
        FCMCase(field: "priority high", notification: #""title": "T", "priority": "high""#,
                gorushMessage: #"{"notification":{"title":"T"},"android":{"priority":"high"}}"#),
        FCMCase(field: "priority normal", notification: #""title": "T", "priority": "normal""#,
                gorushMessage: #"{"notification":{"title":"T"},"android":{"priority":"normal"}}"#),
        FCMCase(field: "android (its own priority wins)", notification: #""title": "T", "priority": "high", "android": {"priority": "normal", "collapse_key": "c", "ttl": "60s"}"#,
                gorushMessage: #"{"notification":{"title":"T"},"android":{"priority":"normal","collapse_key":"c","ttl":"60s"}}"#),
        FCMCase(field: "sound", notification: #""title": "T", "sound": "ding""#,
                gorushMessage: #"{"notification":{"title":"T"},"android":{"notification":{"sound":"ding"}},"apns":{"payload":{"aps":{"sound":"ding"}}}}"#),
        FCMCase(field: "sound + priority", notification: #""title": "T", "sound": "ding", "priority": "high""#,
                gorushMessage: #"{"notification":{"title":"T"},"android":{"priority":"high","notification":{"sound":"ding"}},"apns":{"payload":{"aps":{"sound":"ding"}}}}"#),
        FCMCase(field: "sound + android", notification: #""title": "T", "sound": "ding", "android": {"collapse_key": "c"}"#,
                gorushMessage: #"{"notification":{"title":"T"},"android":{"collapse_key":"c"},"apns":{"payload":{"aps":{"sound":"ding"}}}}"#),
        FCMCase(field: "sound + apns", notification: #""title": "T", "sound": "ding", "apns": {"headers": {"apns-priority": "10"}, "payload": {"aps": {"badge": 2}}}"#,
                gorushMessage: #"{"notification":{"title":"T"},"android":{"notification":{"sound":"ding"}},"apns":{"headers":{"apns-priority":"10"},"payload":{"aps":{"badge":2,"sound":"ding"}}}}"#),
        FCMCase(field: "sound (object: iOS only)", notification: #""title": "T", "sound": {"critical": 1, "name": "a"}"#,
                gorushMessage: #"{"notification":{"title":"T"}}"#),
        FCMCase(field: "mutable_content", notification: #""title": "T", "mutable_content": true"#,
                gorushMessage: #"{"notification":{"title":"T"},"apns":{"payload":{"aps":{"mutable-content":1}}}}"#),
        FCMCase(field: "mutable_content + sound", notification: #""message": "M", "mutable_content": true, "sound": "ding""#,
                gorushMessage: #"{"notification":{"body":"M"},"android":{"notification":{"sound":"ding"}},"apns":{"payload":{"aps":{"mutable-content":1,"sound":"ding"}}}}"#),
        FCMCase(field: "mutable_content without title, message or image", notification: #""mutable_content": true, "data": {"k": "v"}"#,
                gorushMessage: #"{"data":{"k":"v"}}"#),
        FCMCase(field: "content_available", notification: #""content_available": true, "data": {"k": "v"}"#,
                gorushMessage: #"{"data":{"k":"v"},"apns":{"headers":{"apns-priority":"5"},"payload":{"aps":{"content-available":1,"k":"v"}}}}"#,
                correction: (#"{"data":{"k":"v"},"apns":{"headers":{"apns-priority":"5"},"payload":{"aps":{"content-available":1},"k":"v"}}}"#,
                             "`data` on a silent FCM push")),
        FCMCase(field: "data (values written as Go writes them)",
                notification: #""title": "T", "data": {"s": "x", "n": 1, "f": 1.50, "big": 1e21, "small": 0.0000001, "b": true, "o": {"z": 1, "a": "<&>"}, "l": [1, "a"], "nul": null}"#,
                gorushMessage: #"""
                {"notification":{"title":"T"},"data":{"s":"x","n":"1","f":"1.5","big":"1e+21","small":"1e-7","b":"true",
                 "o":"{\"a\":\"\\u003c\\u0026\\u003e\",\"z\":1}","l":"[1,\"a\"]","nul":"null"}}
                """#),
        FCMCase(field: "apns", notification: #""title": "T", "apns": {"headers": {"apns-collapse-id": "c"}, "payload": {"aps": {"badge": 1}}}"#,
                gorushMessage: #"{"notification":{"title":"T"},"apns":{"headers":{"apns-collapse-id":"c"},"payload":{"aps":{"badge":1}}}}"#),
        FCMCase(field: "webpush, fcm_options", notification: #""title": "T", "webpush": {"headers": {"TTL": "60"}}, "fcm_options": {"analytics_label": "spring"}"#,
                gorushMessage: #"{"notification":{"title":"T"},"webpush":{"headers":{"TTL":"60"}},"fcm_options":{"analytics_label":"spring"}}"#),
        FCMCase(field: "empty notification, android, apns, webpush, fcm_options (sent as {})",
                notification: #""data": {"k": "v"}, "notification": {}, "android": {}, "apns": {}, "webpush": {}, "fcm_options": {}"#,
                gorushMessage: #"{"data":{"k":"v"},"notification":{},"android":{},"apns":{},"webpush":{},"fcm_options":{}}"#),
        FCMCase(field: "topic", notification: #""title": "T", "topic": "news""#, gorushMessage: #"{"notification":{"title":"T"}}"#,
                otherTargets: [("topic", "news")], withToken: false),
        FCMCase(field: "topic with /topics/", notification: #""title": "T", "topic": "/topics/sport""#, gorushMessage: #"{"notification":{"title":"T"}}"#,
                otherTargets: [("topic", "sport")], withToken: false),
        FCMCase(field: "condition", notification: #""title": "T", "condition": "'weather' in topics""#, gorushMessage: #"{"notification":{"title":"T"}}"#,
                otherTargets: [("condition", "'weather' in topics")], withToken: false),
        FCMCase(field: "topic + tokens", notification: #""title": "T", "topic": "deals""#, gorushMessage: #"{"notification":{"title":"T"}}"#,
                otherTargets: [("topic", "deals")]),
        FCMCase(field: "to", notification: #""title": "T", "to": "\#(fcmToken(999))""#, gorushMessage: #"{"notification":{"title":"T"}}"#,
                otherTargets: [("token", fcmToken(999))]),
        FCMCase(field: "iOS and Huawei fields (ignored on FCM)", notification: #"""
                "title": "T", "badge": 1, "category": "C", "thread-id": "t", "alert": {"title": "A"}, "apns_id": "\#(apnsID)", "collapse_id": "c",
                "expiration": 1900000000, "push_type": "alert", "name": "n", "volume": 0.5, "interruption_level": "active", "url-args": ["a"],
                "production": true, "content-state": {"a": 1}, "event": "update", "timestamp": 1, "relevance-score": 1,
                "huawei_data": "{}", "bi_tag": "b", "notif_id": "n1", "retry": 2
                """#, gorushMessage: #"{"notification":{"title":"T"}}"#),
    ]

    func testEveryAndroidFieldMakesTheFCMRequestGorushMakes() async throws {
        try await start()
        let cases = Self.fcmCases
        let notifications = cases.enumerated().map { i, c in
            #"{"tokens": [\#(c.withToken ? "\"\(Self.fcmToken(i))\"" : "")], "platform": 2, \#(c.notification)}"#
        }
        let response = try await post(#"{"notifications": [\#(notifications.joined(separator: ",\n"))]}"#)
        XCTAssertEqual(response.status, 200, response.bodyText)
        XCTAssertTrue(response.bodyText.contains(#""logs":[]"#), "every target sent: \(response.bodyText)")
        let sends = try recorded().filter { $0.path.hasSuffix("/messages:send") }
        var expectedSends = 0
        for (i, c) in cases.enumerated() {
            let targets = (c.withToken ? [("token", Self.fcmToken(i))] : []) + c.otherTargets
            for (kind, value) in targets {
                expectedSends += 1
                let matching = sends.filter { $0.json?["message"]?[kind]?.stringValue == value }
                XCTAssertEqual(matching.count, 1, "\(c.field): one message for \(kind) \(value)")
                guard let r = matching.first, let body = r.json else { continue }
                XCTAssertEqual(r.path, "/v1/projects/\(Fixtures.fcmProjectID)/messages:send", c.field)
                XCTAssertEqual(r.headers["authorization"], "Bearer ya29.recorder-token", c.field)
                XCTAssertTrue(r.headers["content-type"]?.hasPrefix("application/json") ?? false, "\(c.field): firebase-admin sends application/json")
                XCTAssertNil(body["validate_only"], "\(c.field): firebase-admin sends no validate_only (false is the default)")
                var message = try JSONDocument.parse(Array((c.correction?.message ?? c.gorushMessage).utf8)).root
                if case .object(var o) = message {
                    o.members.append(JSONMember(key: kind, value: .string(value)))
                    message = .object(o)
                }
                XCTAssertEqual(Self.canonical(body["message"] ?? .null), Self.canonical(message),
                               "\(c.field): the FCM message\(c.correction.map { " (correction: \($0.row))" } ?? "")")
                XCTAssertEqual(body.objectValue?.keys, ["message"], "\(c.field): the body holds only the message")
            }
        }
        XCTAssertEqual(sends.count, expectedSends, "no other message reached FCM")
    }

    // MARK: - The four defects of issue 38, one test each

    /// gorush's `apns_id` becomes the `apns-id` header; without one, none is sent (nor an
    /// `apns-priority` nobody asked for).
    func testApnsIDBecomesTheHeaderAndNothingUnaskedIsAdded() async throws {
        try await start()
        let (a, b) = (String(format: "%064x", 0xD001), String(format: "%064x", 0xD002))
        let response = try await post(#"{"notifications": [{"tokens": ["\#(a)"], "platform": 1, "message": "m", "apns_id": "\#(Self.apnsID)"}, {"tokens": ["\#(b)"], "platform": 1, "message": "m"}]}"#)
        XCTAssertEqual(response.status, 200, response.bodyText)
        let requests = try recorded()
        let first = requests.first { $0.path.hasSuffix(a) }, second = requests.first { $0.path.hasSuffix(b) }
        XCTAssertEqual(first?.headers["apns-id"], Self.apnsID)
        XCTAssertNotNil(second)
        XCTAssertNil(second?.headers["apns-id"], "gorush sends no apns-id unless asked: APNs makes one")
        XCTAssertNil(second?.headers["apns-priority"], "gorush sends no apns-priority unless asked")
    }

    /// For platform 2, `sound` and `mutable_content` also reach iOS devices through
    /// `message.apns.payload.aps`, as gorush sends them.
    func testFCMNotificationsKeepTheirIOSHalf() async throws {
        try await start()
        let token = Self.fcmToken(1)
        let response = try await post(#"{"notifications": [{"tokens": ["\#(token)"], "platform": 2, "title": "T", "sound": "ding", "mutable_content": true}]}"#)
        XCTAssertEqual(response.status, 200, response.bodyText)
        let body = try recorded().first { $0.path.hasSuffix("/messages:send") }?.json
        let aps = body?["message"]?["apns"]?["payload"]?["aps"]
        XCTAssertEqual(aps?["sound"]?.stringValue, "ding", "\(String(describing: body))")
        XCTAssertEqual(aps?["mutable-content"]?.numberValue?.intValue, 1, "\(String(describing: body))")
        XCTAssertEqual(body?["message"]?["android"]?["notification"]?["sound"]?.stringValue, "ding")
    }

    /// `"mutable_content": 1` is a type error on every platform, with gorush's text; nothing is sent.
    func testATypeErrorIsRefusedOnEveryPlatform() async throws {
        try await start()
        for (platform, token) in [(1, String(format: "%064x", 0xD003)), (2, Self.fcmToken(2))] {
            let response = try await post(#"{"notifications": [{"tokens": ["\#(token)"], "platform": \#(platform), "title": "T", "mutable_content": 1}]}"#)
            XCTAssertEqual(response.status, 400, "platform \(platform): \(response.bodyText)")
            let answer = try JSONDocument.parse(response.body).root
            XCTAssertEqual(answer["message"]?.stringValue, "Missing notifications field.", "platform \(platform)")
            XCTAssertEqual(answer["field"]?.stringValue, "/notifications/0/mutable_content", "platform \(platform)")
            XCTAssertEqual(answer["code"]?.numberValue?.intValue, 400)
        }
        XCTAssertEqual(try recorded().count, 0, "a refused request sends nothing")
    }

    /// The Go type of every PushNotification field (notify/notification.go, v1.22.0), each given
    /// a value Go cannot decode into it: refused with gorush's text on both platforms, the field named.
    func testEveryFieldIsTypeCheckedOnEveryPlatform() async throws {
        try await start()
        let string = "1", stringArray = #""x""#, int = #""1""#, bool = "1", number = #""1""#, object = #""x""#
        let wrong: [String: String] = [
            "notif_id": string, "to": string, "topic": string, "tokens": stringArray, "platform": int, "message": string, "title": string,
            "image": string, "priority": string, "content_available": bool, "mutable_content": bool, "data": object, "retry": int,
            "notification": object, "android": object, "webpush": object, "apns": object, "fcm_options": object, "condition": string,
            "app_id": string, "app_secret": string, "huawei_notification": object, "huawei_data": string, "huawei_collapse_key": int,
            "huawei_ttl": string, "bi_tag": string, "fast_app_target": int, "expiration": int, "apns_id": string, "collapse_id": string,
            "push_type": string, "badge": "1.5", "category": string, "thread-id": string, "url-args": "[1]", "alert": object,
            "production": bool, "development": bool, "name": string, "volume": number, "interruption_level": string,
            "content-state": object, "stale-date": int, "dismissal-date": int, "event": string, "timestamp": int,
            "attributes-type": string, "attributes": object, "relevance-score": number,
        ]
        for (key, value) in wrong.sorted(by: { $0.key < $1.key }) {
            for (platform, token) in [(1, String(format: "%064x", 0xD100)), (2, Self.fcmToken(3))] {
                let fields = [#""tokens": ["\#(token)"]"#, #""platform": \#(platform)"#, #""title": "T""#].filter { !$0.hasPrefix("\"\(key)\"") }
                let body = #"{"notifications": [{\#((fields + [#""\#(key)": \#(value)"#]).joined(separator: ", "))}]}"#
                let response = try await post(body)
                XCTAssertEqual(response.status, 400, "\(key) on platform \(platform): \(response.bodyText)")
                let answer = try JSONDocument.parse(response.body).root
                XCTAssertEqual(answer["message"]?.stringValue, "Missing notifications field.", "\(key) on platform \(platform)")
                let pointer = answer["field"]?.stringValue ?? ""
                XCTAssertTrue(pointer.hasPrefix("/notifications/0/\(key)"), "\(key) on platform \(platform): field \(pointer)")
            }
        }
        XCTAssertEqual(try recorded().count, 0, "a refused request sends nothing")
    }

    /// Each of gorush's error texts, exactly, with the relay's `error`, `field`, `detail` and `fix` beside it.
    func testErrorsCarryGorushsExactMessages() async throws {
        try await start(maxNotifications: 2)
        let token = String(format: "%064x", 0xD004)
        let one = #"{"tokens": ["\#(token)"], "platform": 1, "message": "m"}"#
        let cases: [(String, String, String, String)] = [
            ("not JSON", #"{"notifications": ["#, "Missing notifications field.", "body"),
            ("not an object", #"[1, 2]"#, "Missing notifications field.", "body"),
            ("no notifications", #"{"other": []}"#, "Missing notifications field.", "/notifications"),
            ("notifications null", #"{"notifications": null}"#, "Missing notifications field.", "/notifications"),
            ("notifications not an array", #"{"notifications": {}}"#, "Missing notifications field.", "/notifications"),
            ("a wrong type", #"{"notifications": [{"tokens": ["\#(token)"], "platform": "1"}]}"#, "Missing notifications field.", "/notifications/0/platform"),
            ("a wrong type in the alert", #"{"notifications": [{"tokens": ["\#(token)"], "platform": 1, "alert": {"loc-args": "x"}}]}"#,
             "Missing notifications field.", "/notifications/0/alert/loc-args"),
            ("a wrong type beats the limit", #"{"notifications": [\#(one), \#(one), {"badge": "1"}]}"#, "Missing notifications field.", "/notifications/2/badge"),
            ("empty", #"{"notifications": []}"#, "Notifications field is empty.", "/notifications"),
            ("over the limit", #"{"notifications": [\#(one), \#(one), \#(one)]}"#, "Number of notifications(3) over limit(2)", "/notifications"),
        ]
        for (name, body, message, field) in cases {
            let response = try await post(body)
            XCTAssertEqual(response.status, 400, "\(name): \(response.bodyText)")
            let answer = try JSONDocument.parse(response.body).root
            XCTAssertEqual(answer["code"]?.numberValue?.intValue, 400, name)
            XCTAssertEqual(answer["message"]?.stringValue, message, name)
            XCTAssertEqual(answer["field"]?.stringValue, field, name)
            XCTAssertNotNil(answer["error"]?.stringValue, name)
            XCTAssertFalse(answer["detail"]?.stringValue?.isEmpty ?? true, "\(name): the relay's own explanation")
            XCTAssertFalse(answer["fix"]?.stringValue?.isEmpty ?? true, name)
        }
        XCTAssertEqual(try recorded().count, 0, "a refused request sends nothing")
    }
}
