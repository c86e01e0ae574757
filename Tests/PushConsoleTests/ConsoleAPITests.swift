import Foundation
import PushConsole
import PushHTTP
import TestSupport
import XCTest

/// Every console API endpoint over a real connection to a real gateway (docs/console.md).
final class ConsoleAPITests: XCTestCase {
    static let richPayload = #"{"aps":{"alert":{"title":"Spring sale","subtitle":"Today only","body":"30% off"},"mutable-content":1},"CIO":{"push":{"link":"pushlab://orders/42","image":"IMAGE"}},"CIO-Delivery-ID":"dlv-api-1","CIO-Delivery-Token":"tok-api-1"}"#

    func testThePageScriptAndStyleAreServedFromTheBinary() async throws {
        let h = try ConsoleHarness(attachLab: false)
        addTeardownBlock { await h.stop() }
        let page = try await h.get("/console")
        XCTAssertEqual(page.status, 200)
        XCTAssertEqual(page.headers["content-type"], "text/html; charset=utf-8")
        XCTAssertTrue(page.text.contains(#"<script src="/console/app.js">"#) && page.text.contains(#"href="/console/app.css""#))
        XCTAssertFalse(page.text.contains("http://") || page.text.contains("https://"), "no external assets")
        let script = try await h.get("/console/app.js")
        XCTAssertEqual(script.headers["content-type"], "text/javascript; charset=utf-8")
        XCTAssertTrue(script.text.contains("new EventSource(\"/console/api/events"))
        XCTAssertFalse(script.text.contains("https://"), "the script loads nothing from elsewhere")
        let style = try await h.get("/console/app.css")
        XCTAssertEqual(style.headers["content-type"], "text/css; charset=utf-8")
    }

    func testPushesArePagedNewestFirstWithTheTokenShortened() async throws {
        let h = try ConsoleHarness(attachLab: false)
        addTeardownBlock { await h.stop() }
        var ids: [String] = []
        for i in 0..<5 { ids.append(try await h.send(#"{"aps":{"alert":"push \#(i)"}}"#).apnsID) }
        let first = try await h.getJSON("/console/api/pushes?limit=2")
        XCTAssertEqual(first.status, 200)
        XCTAssertEqual(first.json["total"] as? Int, 5)
        let rows = try XCTUnwrap(first.json["pushes"] as? [[String: Any]])
        XCTAssertEqual(rows.map { $0["messageID"] as? String }, [ids[4], ids[3]])
        XCTAssertEqual(rows[0]["target"] as? String, "c0ffeec0…", "tokens are shortened (Redact.token)")
        XCTAssertEqual(rows[0]["status"] as? Int, 200)
        XCTAssertNotNil(rows[0]["uniqueID"] as? String, "sandbox answers carry apns-unique-id")
        let next = try XCTUnwrap(first.json["nextBefore"] as? Int)
        let second = try await h.getJSON("/console/api/pushes?limit=10&before=\(next)")
        XCTAssertEqual((second.json["pushes"] as? [[String: Any]])?.map { $0["messageID"] as? String }, [ids[2], ids[1], ids[0]])
        XCTAssertNil(second.json["nextBefore"], "the oldest page says so")
        let whole = try await h.get("/console/api/pushes")
        XCTAssertFalse(whole.text.contains(ConsoleHarness.token), "the full token never leaves the server")
    }

    func testSearchAndFiltersFindAPushByIDTokenAndOutcome() async throws {
        let h = try ConsoleHarness(attachLab: false)
        addTeardownBlock { await h.stop() }
        let wanted = try await h.send(#"{"aps":{"alert":"a"}}"#, token: String(repeating: "ab", count: 32))
        try await h.send(#"{"aps":{"alert":"b"}}"#)
        try await h.send(#"{"aps":{"alert":"c"}}"#, topic: "com.example.other")  // TopicDisallowed
        let byID = try await h.getJSON("/console/api/pushes?q=\(wanted.apnsID.prefix(13))")
        XCTAssertEqual((byID.json["pushes"] as? [[String: Any]])?.compactMap { $0["messageID"] as? String }, [wanted.apnsID])
        let byToken = try await h.getJSON("/console/api/pushes?q=ABABABABABAB")
        XCTAssertEqual((byToken.json["pushes"] as? [[String: Any]])?.count, 1, "search matches the whole token, case-insensitively")
        let rejected = try await h.getJSON("/console/api/pushes?outcome=rejected")
        let rows = try XCTUnwrap(rejected.json["pushes"] as? [[String: Any]])
        XCTAssertEqual(rows.count, 1)
        XCTAssertEqual(rows.first?["reason"] as? String, "TopicDisallowed")
        let fcm = try await h.getJSON("/console/api/pushes?platform=fcm")
        XCTAssertEqual((fcm.json["pushes"] as? [Any])?.count, 0)
    }

    func testBadQueryParametersAre400sNamingTheField() async throws {
        let h = try ConsoleHarness(attachLab: false)
        addTeardownBlock { await h.stop() }
        for (query, field) in [("limit=abc", "limit"), ("limit=0", "limit"), ("before=-3", "before"), ("platform=sms", "platform"),
                               ("outcome=maybe", "outcome")] {
            let r = try await h.getJSON("/console/api/pushes?" + query)
            XCTAssertEqual(r.status, 400, query)
            XCTAssertEqual(r.json["field"] as? String, field, query)
            XCTAssertNotNil(r.json["fix"] as? String, query)
        }
        let missing = try await h.getJSON("/console/api/pushes/12345")
        XCTAssertEqual(missing.status, 404)
        XCTAssertEqual(missing.json["field"] as? String, "/id")
    }

    func testDetailHasRedactedHeadersTheAnswerAndFindingsAtTheirPointer() async throws {
        let h = try ConsoleHarness(attachLab: false)
        addTeardownBlock { await h.stop() }
        // APNs accepts a string badge (iOS ignores it): the gateway answers 200, the validator flags it.
        let sent = try await h.send(#"{"aps":{"alert":"hi","badge":"3"}}"#)
        XCTAssertTrue(sent.isAccepted)
        let r = try await h.getJSON("/console/api/pushes/1")
        XCTAssertEqual(r.status, 200)
        let headers = try XCTUnwrap(r.json["headers"] as? [String: String])
        XCTAssertEqual(headers["authorization"], "bearer <redacted>")
        XCTAssertEqual(headers["apns-topic"], "io.pushlab.demo")
        let answer = try XCTUnwrap(r.json["answer"] as? [String: Any])
        XCTAssertEqual(answer["status"] as? Int, 200)
        XCTAssertEqual((answer["headers"] as? [String: String])?["apns-id"], sent.apnsID)
        let findings = try XCTUnwrap((r.json["validation"] as? [String: Any])?["findings"] as? [[String: Any]])
        let badge = try XCTUnwrap(findings.first { $0["rule"] as? String == "aps.badge.type" }, "\(findings)")
        XCTAssertEqual(badge["pointer"] as? String, "/aps/badge")
        XCTAssertNotNil(badge["fix"] as? String)
        XCTAssertEqual(r.json["payload"] as? String, #"{"aps":{"alert":"hi","badge":"3"}}"#)
    }

    func testARejectedPushShowsTheReasonInTheAnswer() async throws {
        let h = try ConsoleHarness(attachLab: false)
        addTeardownBlock { await h.stop() }
        try await h.send(#"{"aps":{"alert":"x"}}"#, topic: "com.example.other")
        let r = try await h.getJSON("/console/api/pushes/1")
        let answer = try XCTUnwrap(r.json["answer"] as? [String: Any])
        XCTAssertEqual(answer["status"] as? Int, 400)
        XCTAssertEqual(answer["body"] as? String, #"{"reason":"TopicDisallowed"}"#)
        XCTAssertNil((answer["headers"] as? [String: String])?["apns-unique-id"], "only accepted sandbox pushes get one")
    }

    func testTheEventStreamAnswersAtOnceThenCarriesTheNextBatch() async throws {
        var configuration = ConsoleConfiguration()
        configuration.eventWait = .seconds(20)
        let h = try ConsoleHarness(configuration: configuration, attachLab: false)
        addTeardownBlock { await h.stop() }
        let hello = try await h.get("/console/api/events?after=0")
        XCTAssertEqual(hello.status, 200)
        XCTAssertEqual(hello.headers["content-type"], "text/event-stream")
        XCTAssertEqual(hello.text, "retry: 200\nid: 0\n: no new pushes\n\n", "the first request is answered at once")
        // The reconnect (Last-Event-ID) waits for the next push, then carries it.
        async let waiting = h.get("/console/api/events", headers: ["last-event-id": "0"])
        let parked = await h.eventually { h.console.log.waitingCount == 1 }
        XCTAssertTrue(parked, "the request waits for a push")
        let sent = try await h.send(#"{"aps":{"alert":"live"}}"#)
        try await h.send(#"{"aps":{"alert":"live 2"}}"#)
        let event = try await waiting
        let lines = event.text.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines.first, "retry: 200")
        XCTAssertTrue(lines.contains("event: pushes"), event.text)
        let data = try XCTUnwrap(lines.first { $0.hasPrefix("data: ") }).dropFirst(6)
        let batch = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(data.utf8)) as? [[String: Any]])
        XCTAssertEqual(batch.first?["messageID"] as? String, sent.apnsID, "oldest first")
        let id = try XCTUnwrap(lines.first { $0.hasPrefix("id: ") }).dropFirst(4)
        XCTAssertEqual(Int(id), batch.last?["id"] as? Int, "the id is the batch's last push")
        XCTAssertFalse(event.text.contains(ConsoleHarness.token))
    }

    /// The stream writes its summaries itself (not with JSONEncoder): the same objects as the
    /// paged log's, field for field — including nil fields left out, escapes and the time.
    func testTheStreamsSummariesAreThePagedLogsSummaries() async throws {
        let h = try ConsoleHarness(attachLab: false)
        addTeardownBlock { await h.stop() }
        try await h.send(#"{"aps":{"alert":"plain"}}"#)
        let tricky = "quote \" backslash \\ newline \n tab \t bell \u{07} slash / é 🚀"
        h.console.log.append(LoggedPush(receivedAt: Date(timeIntervalSince1970: 1_764_600_000.1234), source: .relay, platform: .fcm,
                                        app: tricky, target: "fcm-token-\(tricky)", device: nil, pushType: nil, status: 0,
                                        reason: tricky, messageID: "projects/p/messages/1", uniqueID: nil, deliveryID: "d\"1",
                                        headers: [:], payload: "{}"))
        let stream = try await h.get("/console/api/events?after=0", headers: ["last-event-id": "0"])
        let data = try XCTUnwrap(stream.text.split(separator: "\n").first { $0.hasPrefix("data: ") }).dropFirst(6)
        let streamed = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(data.utf8)) as? [[String: Any]])
        let page = try await h.getJSON("/console/api/pushes")
        let paged = try XCTUnwrap(page.json["pushes"] as? [[String: Any]])
        XCTAssertEqual(streamed.count, 2)
        XCTAssertEqual(paged.count, 2)
        for (s, p) in zip(streamed, paged.reversed()) {
            XCTAssertEqual(Set(s.keys), Set(p.keys), "the same fields, nil ones left out")
            for (key, value) in p where key != "receivedAt" {
                XCTAssertEqual("\(value)", "\(s[key] ?? "missing")", key)
            }
            let ms = try XCTUnwrap(p["receivedAt"] as? Double), streamedMS = try XCTUnwrap(s["receivedAt"] as? Double)
            XCTAssertEqual(streamedMS, ms.rounded(), accuracy: 0.5)
        }
        XCTAssertEqual(streamed.last?["reason"] as? String, tricky)
    }

    func testAnIdleEventStreamEndsAfterItsWaitKeepingTheID() async throws {
        var configuration = ConsoleConfiguration()
        configuration.eventWait = .milliseconds(100)
        let h = try ConsoleHarness(configuration: configuration, attachLab: false)
        addTeardownBlock { await h.stop() }
        let r = try await h.get("/console/api/events", headers: ["last-event-id": "7"])
        XCTAssertEqual(r.text, "retry: 200\nid: 7\n: no new pushes\n\n")
        let bad = try await h.get("/console/api/events", headers: ["last-event-id": "seven"])
        XCTAssertEqual(bad.status, 400)
        XCTAssertEqual(bad.json["field"] as? String, "header last-event-id")
    }

    func testValidateRunsTheCatalogAndPointsAtTheProblem() async throws {
        let h = try ConsoleHarness(attachLab: false)
        addTeardownBlock { await h.stop() }
        let r = try await h.post("/console/api/validate", json: #"{"payload":"{\n  \"aps\": {\"badge\": \"3\"}\n}","format":"apns"}"#)
        XCTAssertEqual(r.status, 200)
        let finding = try XCTUnwrap((r.json["findings"] as? [[String: Any]])?.first)
        XCTAssertEqual(finding["rule"] as? String, "aps.badge.type")
        XCTAssertEqual(finding["pointer"] as? String, "/aps/badge")
        XCTAssertEqual(finding["line"] as? Int, 2)
        let syntax = try await h.post("/console/api/validate", json: #"{"payload":"{\"aps\": "}"#)
        XCTAssertEqual(((syntax.json["findings"] as? [[String: Any]])?.first?["rule"] as? String)?.hasPrefix("json."), true, syntax.text)
        let fcm = try await h.post("/console/api/validate", json: #"{"payload":"{\"message\":{\"token\":\"t\",\"data\":{\"n\":1}}}","format":"fcm"}"#)
        XCTAssertTrue(((fcm.json["findings"] as? [[String: Any]]) ?? []).contains { $0["pointer"] as? String == "/message/data/n" }, fcm.text)
        let headers = try await h.post("/console/api/validate", json: #"{"payload":"{\"aps\":{\"alert\":\"x\"}}","pushType":"background"}"#)
        XCTAssertFalse(((headers.json["findings"] as? [[String: Any]]) ?? []).isEmpty, "the header fields are checked with the payload")
    }

    func testValidateRefusesABodyItCannotRead() async throws {
        let h = try ConsoleHarness(attachLab: false)
        addTeardownBlock { await h.stop() }
        let notJSON = try await h.post("/console/api/validate", json: "payload=1")
        XCTAssertEqual(notJSON.status, 400)
        XCTAssertEqual(notJSON.json["field"] as? String, "/payload")
        let format = try await h.post("/console/api/validate", json: #"{"payload":"{}","format":"xml"}"#)
        XCTAssertEqual(format.status, 400)
        XCTAssertEqual(format.json["field"] as? String, "/format")
    }

    func testSendFromTheFormIsRecordedByTheGateway() async throws {
        let h = try ConsoleHarness()
        addTeardownBlock { await h.stop() }
        let r = try await h.post("/console/api/send", json: """
            {"platform":"apns","token":"\(ConsoleHarness.token)","topic":"io.pushlab.demo","payload":"{\\"aps\\":{\\"alert\\":\\"from the form\\"}}"}
            """)
        XCTAssertEqual(r.status, 200, r.text)
        XCTAssertEqual(r.json["outcome"] as? String, "accepted")
        let id = try XCTUnwrap(r.json["id"] as? String)
        XCTAssertEqual(r.json["target"] as? String, "c0ffeec0…")
        let recorded = try h.gateway.records.recent(limit: 10)
        XCTAssertTrue(recorded.contains { $0.messageID == id && $0.payload.contains("from the form") })
        XCTAssertEqual(h.console.log.push(id: 1)?.messageID, id, "and it is in the log")

        let fcmToken = "dQw4w9WgXcQ:APA91bH" + String(repeating: "x_Y-z0", count: 24)
        let fcm = try await h.post("/console/api/send", json: #"{"platform":"fcm","payload":"{\"message\":{\"token\":\"\#(fcmToken)\",\"notification\":{\"title\":\"hi\"}}}"}"#)
        XCTAssertEqual(fcm.json["outcome"] as? String, "accepted", fcm.text)
        XCTAssertTrue((fcm.json["id"] as? String)?.hasPrefix("projects/pushlab-dev/messages/") == true, fcm.text)
        XCTAssertEqual(h.console.log.push(id: 2)?.platform, .fcm)
    }

    func testSendRefusalsNameTheFormField() async throws {
        let h = try ConsoleHarness()
        addTeardownBlock { await h.stop() }
        let cases: [(String, String)] = [
            (#"{"platform":"apns","payload":"{}"}"#, "/token"),
            (#"{"platform":"apns","token":"\#(ConsoleHarness.token)","payload":"{\"aps\":{\"alert\":\"x\"}}"}"#, "/topic"),
            (#"{"platform":"apns","token":"\#(ConsoleHarness.token)","topic":"io.pushlab.demo","pushType":"banner","payload":"{}"}"#, "/pushType"),
            (#"{"platform":"apns","token":"\#(ConsoleHarness.token)","topic":"io.pushlab.demo","payload":"{\"aps\":"}"#, "/payload"),
            (#"{"platform":"fcm","payload":"{\"message\":{\"notification\":{}}}"}"#, "/payload"),
            (#"{"platform":"sms","payload":"{}"}"#, "/platform"),
            (#"{"token":"x"}"#, "/payload"),
        ]
        for (body, field) in cases {
            let r = try await h.post("/console/api/send", json: body)
            XCTAssertEqual(r.status, 400, body)
            XCTAssertEqual(r.json["field"] as? String, field, "\(body): \(r.text)")
            XCTAssertFalse((r.json["fix"] as? String ?? "").isEmpty, body)
        }
        XCTAssertEqual(h.console.log.count, 0, "nothing reached the gateway")
    }

    func testWithoutClientsTheSendFormAnswers503() async throws {
        let h = try ConsoleHarness(attachLab: false)
        addTeardownBlock { await h.stop() }
        let r = try await h.post("/console/api/send", json: #"{"platform":"apns","payload":"{}"}"#)
        XCTAssertEqual(r.status, 503)
        XCTAssertNotNil(r.json["fix"] as? String)
    }

    func testStatusSaysWhatTheConsoleCanDo() async throws {
        let h = try ConsoleHarness()
        addTeardownBlock { await h.stop() }
        let r = try await h.getJSON("/console/api/status")
        XCTAssertEqual(r.json["canSendAPNs"] as? Bool, true)
        XCTAssertEqual(r.json["canSendFCM"] as? Bool, true)
        XCTAssertEqual(r.json["hasPhone"] as? Bool, true)
        XCTAssertEqual(r.json["capacity"] as? Int, 1_000)
        let bare = try ConsoleHarness(attachLab: false)
        addTeardownBlock { await bare.stop() }
        let bareStatus = try await bare.getJSON("/console/api/status")
        XCTAssertEqual(bareStatus.json["hasPhone"] as? Bool, false)
    }
}

/// `/console` answers loopback peers only unless `allowRemote` (`--console-remote`), checked
/// over a real connection from this machine's own non-loopback address.
final class ConsoleLoopbackTests: XCTestCase {
    private func get(_ url: String) throws -> (status: Int, body: String) {
        let r = try ProcessRunner.run("/usr/bin/curl", ["-s", "--max-time", "5", "-w", "\n%{http_code}", url])
        return (Int(r.stdout.split(separator: "\n").last ?? "") ?? 0, r.stdout)
    }

    func testTheConsoleRefusesPeersThatAreNotLoopbackUnlessAllowed() async throws {
        let ip = try XCTUnwrap(NetworkAddresses.externalIPv4(), "no non-loopback IPv4 address on this machine")
        let h = try ConsoleHarness(attachLab: false, host: "0.0.0.0")
        addTeardownBlock { await h.stop() }
        let port = try XCTUnwrap(h.gateway.googleAddresses?.cleartextPort)
        for path in ["/console", "/console/api/pushes", "/console/api/events"] {
            let remote = try get("http://\(ip):\(port)\(path)")
            XCTAssertEqual(remote.status, 403, path)
            XCTAssertTrue(remote.body.contains("loopback clients only") && remote.body.contains("--console-remote"), remote.body)
        }
        XCTAssertEqual(try get("http://127.0.0.1:\(port)/console").status, 200)

        var open = ConsoleConfiguration()
        open.allowRemote = true
        let shared = try ConsoleHarness(configuration: open, attachLab: false, host: "0.0.0.0")
        addTeardownBlock { await shared.stop() }
        let sharedPort = try XCTUnwrap(shared.gateway.googleAddresses?.cleartextPort)
        XCTAssertEqual(try get("http://\(ip):\(sharedPort)/console/api/pushes").status, 200)
    }

    /// With an access token (what `--console-remote` sets), every route — the page, the API and
    /// the live stream — answers 401 without it or with a wrong one, from any peer; the token
    /// works as a bearer header, and the page's `?token=` link answers with a cookie and a
    /// redirect to the bare URL, after which the cookie alone opens the API and the stream.
    func testARemoteConsoleAsksForItsAccessTokenOnEveryRoute() async throws {
        let ip = try XCTUnwrap(NetworkAddresses.externalIPv4(), "no non-loopback IPv4 address on this machine")
        let access = ConsoleAccess.generate()
        var configuration = ConsoleConfiguration()
        configuration.allowRemote = true
        configuration.access = access
        configuration.eventWait = .milliseconds(200)
        let h = try ConsoleHarness(configuration: configuration, attachLab: false, host: "0.0.0.0")
        addTeardownBlock { await h.stop() }
        let port = try XCTUnwrap(h.gateway.googleAddresses?.cleartextPort)
        let paths = ["/console", "/console/app.js", "/console/api/status", "/console/api/pushes", "/console/api/pushes/1",
                     "/console/api/devices", "/console/api/events", "/console/api/metrics"]
        for host in [ip, "127.0.0.1"] {
            for path in paths {
                let none = try get("http://\(host):\(port)\(path)")
                XCTAssertEqual(none.status, 401, "\(host)\(path)")
                XCTAssertTrue(none.body.contains("access token"), none.body)
                XCTAssertFalse(none.body.contains(access.token), "the refusal must not reveal the token")
            }
        }
        for path in ["/console/api/validate", "/console/api/send"] {
            let post = try ProcessRunner.run("/usr/bin/curl", ["-s", "--max-time", "5", "-w", "\n%{http_code}", "-d", "{}", "http://\(ip):\(port)\(path)"])
            XCTAssertTrue(post.stdout.hasSuffix("\n401"), "POST \(path): \(post.stdout)")
        }
        let wrong = try ProcessRunner.run("/usr/bin/curl", ["-s", "--max-time", "5", "-w", "\n%{http_code}", "-H", "authorization: Bearer \(access.token)x",
                                                            "http://\(ip):\(port)/console/api/status"])
        XCTAssertTrue(wrong.stdout.hasSuffix("\n401") && wrong.stdout.contains("wrong console access token"), wrong.stdout)
        let bearer = try ProcessRunner.run("/usr/bin/curl", ["-s", "--max-time", "5", "-w", "\n%{http_code}", "-H", "authorization: Bearer \(access.token)",
                                                             "http://\(ip):\(port)/console/api/status"])
        XCTAssertTrue(bearer.stdout.hasSuffix("\n200"), bearer.stdout)

        // The browser's way in: the link with ?token= sets the cookie and redirects.
        let jar = FileManager.default.temporaryDirectory.appendingPathComponent("console-jar-\(UUID().uuidString)").path
        addTeardownBlock { try? FileManager.default.removeItem(atPath: jar) }
        let link = try ProcessRunner.run("/usr/bin/curl", ["-s", "--max-time", "5", "-D", "-", "-o", "/dev/null", "-c", jar,
                                                           "http://\(ip):\(port)/console?token=\(access.token)"])
        XCTAssertTrue(link.stdout.hasPrefix("HTTP/1.1 303") && link.stdout.lowercased().contains("location: /console\r\n"), link.stdout)
        XCTAssertTrue(link.stdout.contains("HttpOnly") && link.stdout.contains("SameSite=Strict"), link.stdout)
        for path in ["/console", "/console/api/pushes", "/console/api/events"] {
            let withCookie = try ProcessRunner.run("/usr/bin/curl", ["-s", "--max-time", "5", "-o", "/dev/null", "-w", "%{http_code}", "-b", jar,
                                                                     "http://\(ip):\(port)\(path)"])
            XCTAssertEqual(withCookie.stdout, "200", "\(path) with the cookie")
        }
        let stream = try ProcessRunner.run("/usr/bin/curl", ["-s", "--max-time", "5", "-b", jar, "http://\(ip):\(port)/console/api/events"])
        XCTAssertTrue(stream.stdout.hasPrefix("retry: "), "the live stream answers with the cookie: \(stream.stdout)")
    }
}
