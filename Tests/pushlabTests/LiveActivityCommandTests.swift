import Foundation
import TestSupport
import XCTest

/// `pushlab serve`'s channel API and virtual iPhones, `pushlab channels`, `send apns --channel`,
/// `pushlab activity` — real processes, and an independent Python client (httpx, HTTP/2).
final class LiveActivityCommandTests: XCTestCase {
    struct Serve {
        let process: RunningPushlab
        let apns: String
        let google: String
    }

    func serve(quiet: Bool = true) throws -> Serve {
        let p = try RunningPushlab(["serve", "--apns-port", "0", "--port", "0", "--h2c-port", "0"] + (quiet ? ["--quiet"] : []) + [
                                    "--cert", Fixtures.serverCert, "--key", Fixtures.serverKey,
                                    "--live-app", Fixtures.path("payloads/apps/live.json")])
        var apns: String?, google: String?
        while let line = p.nextLine() {
            if line.hasPrefix("APNs: https://"), let url = line.split(separator: " ").dropFirst().first { apns = String(url) }
            if line.hasPrefix("https://"), line.contains("(h2, http/1.1)"), let url = line.split(separator: " ").first { google = String(url) }
            if line.contains("quick start") { break }
        }
        guard let apns, let google else {
            p.terminate()
            throw ServeDidNotStart()
        }
        return Serve(process: p, apns: apns, google: google)
    }

    struct ServeDidNotStart: Error, CustomStringConvertible {
        var description: String { "pushlab serve printed no APNs and Google URLs" }
    }

    var key: [String] { ["--key", Fixtures.apnsKey, "--team-id", Fixtures.apnsTeamID, "--ca-file", Fixtures.caFile] }

    func testAnIndependentHTTPXClientSeesTheChannelAPIAnswerLikeApple() throws {
        let s = try serve()
        defer { s.process.terminate() }
        let r = try ProcessRunner.run(Fixtures.python, [Fixtures.path("Tests/Peers/channels_httpx.py"), s.apns, Fixtures.caFile, Fixtures.apnsKey,
                                                        Fixtures.apnsKeyID, Fixtures.apnsTeamID, Fixtures.bundleID], timeout: 60)
        XCTAssertEqual(r.status, 0, r.stderr)
        let out = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.stdout)
        XCTAssertEqual(out["http_version"] as? String, "HTTP/2")
        XCTAssertEqual(out["create"] as? Int, 201)
        XCTAssertEqual(out["create_request_id"] as? Bool, true)
        let get = out["get"] as? [Any]
        XCTAssertEqual(get?.first as? Int, 200)
        XCTAssertEqual((get?.last as? [String: Any])?["message-storage-policy"] as? Int, 0)
        XCTAssertEqual((out["list"] as? [Any])?.last as? Bool, true)
        XCTAssertEqual(out["broadcast"] as? Int, 200)
        XCTAssertEqual((out["broadcast_expiring"] as? [Any])?.last as? String, "BadExpirationDate")
        XCTAssertEqual((out["missing_header"] as? [Any])?.last as? String, "MissingChannelId")
        XCTAssertEqual((out["bad_policy"] as? [Any])?.last as? String, "BadRequestParams")
        XCTAssertEqual(out["delete"] as? Int, 204)
        XCTAssertEqual((out["after_delete"] as? [Any])?.last as? String, "ChannelNotRegistered")
        XCTAssertEqual(s.process.interrupt(), 0)
    }

    /// A channel and one phone's activity subscribed to it (issue 36 item 8's walk-through, small).
    private func channelWithOneActivity(_ s: Serve) throws -> String {
        let create = try ProcessRunner.pushlab(["channels", "create", "--bundle-id", Fixtures.bundleID, "--storage-policy", "no-storage", "--url", s.apns] + key)
        XCTAssertEqual(create.status, 0, create.stderr)
        let channel = create.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let start = try ProcessRunner.pushlab(["activity", "start", "--url", s.google, "--ca-file", Fixtures.caFile, "--device", "phone-1",
                                               "--attributes-type", "DeliveryAttributes",
                                               "--attributes", Fixtures.path("payloads/live-activities/attributes.json"),
                                               "--content-state", Fixtures.path("payloads/live-activities/state-placed.json"), "--channel", channel])
        XCTAssertEqual(start.status, 0, start.stderr)
        return channel
    }

    private func broadcast(_ s: Serve, _ channel: String, _ event: String, timestamp: Int, _ extra: [String] = []) throws -> ProcessResult {
        try ProcessRunner.pushlab(["send", "apns", "--url", s.apns, "--topic", Fixtures.bundleID, "--no-history", "--channel", channel,
                                   "--live-activity", event, "--timestamp", String(timestamp), "--expiration", "0"] + extra + key)
    }

    private func listing(_ s: Serve, until done: (String) -> Bool) throws -> String {
        var text = ""
        _ = ServerProcess.poll(timeout: 20) {
            text = (try? ProcessRunner.pushlab(["activity", "list", "--url", s.google, "--ca-file", Fixtures.caFile]).stdout) ?? ""
            return done(text)
        }
        return text
    }

    /// Typed straight through, the update and the end carry the same second: the end is not
    /// older than the update, so iOS applies it (docs/specs/apns.md) and the activity ends.
    func testAnEndStampedWithTheUpdatesSecondEndsTheActivity() throws {
        let s = try serve()
        defer { s.process.terminate() }
        let channel = try channelWithOneActivity(s)
        let second = Int(Date().timeIntervalSince1970)
        let update = try broadcast(s, channel, "update", timestamp: second,
                                   ["--content-state", Fixtures.path("payloads/live-activities/state-on-the-way.json")])
        XCTAssertEqual(update.status, 0, update.stdout + update.stderr)
        _ = try listing(s) { $0.contains("on the way") }
        let end = try broadcast(s, channel, "end", timestamp: second, ["--dismissal-date", "now"])
        XCTAssertEqual(end.status, 0, end.stdout + end.stderr)
        let text = try listing(s) { $0.contains("[dismissed]") }
        XCTAssertTrue(text.contains("[dismissed]"), "the end of the same second was dropped: \(text)")
        XCTAssertFalse(text.contains("not applied"), text)
        XCTAssertEqual(s.process.interrupt(), 0)
    }

    /// An update older than the shown state is dropped, as on iOS, and the drop is visible: in
    /// `activity list` under the activity and as a line of serve's log. A timestamp more than 8
    /// hours ahead cannot win: send warns, and the phone drops it too.
    func testADroppedUpdateShowsInTheListAndServesLogAndSendWarnsWhenItCannotWin() throws {
        let s = try serve(quiet: false)
        defer { s.process.terminate() }
        let channel = try channelWithOneActivity(s)
        let now = Int(Date().timeIntervalSince1970)
        let state = ["--content-state", Fixtures.path("payloads/live-activities/state-on-the-way.json")]
        XCTAssertEqual(try broadcast(s, channel, "update", timestamp: now, state).status, 0)
        _ = try listing(s) { $0.contains("on the way") }
        let older = try broadcast(s, channel, "update", timestamp: now - 100, ["--content-state", Fixtures.path("payloads/live-activities/state-placed.json")])
        XCTAssertEqual(older.status, 0, "APNs accepts it; the phone drops it: \(older.stderr)")
        var text = try listing(s) { $0.contains("not applied") }
        XCTAssertTrue(text.contains("1 push not applied; last: dropped — timestamp \(now - 100) is older than the shown state's \(now)"), text)
        XCTAssertTrue(text.contains("on the way"), "the shown state stays: \(text)")
        var logged: String?
        while let line = s.process.nextLine() {
            if line.hasPrefix("live activity phone-1") { logged = line; break }
        }
        XCTAssertTrue(logged?.contains("dropped — timestamp \(now - 100)") == true, logged ?? "serve printed no line for the drop")

        let ahead = try broadcast(s, channel, "update", timestamp: now + 9 * 3600, state)
        XCTAssertEqual(ahead.status, 0, ahead.stderr)
        XCTAssertTrue(ahead.stderr.contains("warning:") && ahead.stderr.contains("cannot win"), ahead.stderr)
        text = try listing(s) { $0.contains("2 pushes not applied") }
        XCTAssertTrue(text.contains("2 pushes not applied; last: dropped — timestamp \(now + 9 * 3600)"), text)
        XCTAssertEqual(s.process.interrupt(), 0)
    }

    func testChannelsCommandsAndABroadcastToThreePhonesThroughServe() throws {
        let s = try serve()
        defer { s.process.terminate() }
        let create = try ProcessRunner.pushlab(["channels", "create", "--bundle-id", Fixtures.bundleID, "--storage-policy", "most-recent", "--url", s.apns] + key)
        XCTAssertEqual(create.status, 0, create.stderr)
        let channel = create.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let get = try ProcessRunner.pushlab(["channels", "get", "--bundle-id", Fixtures.bundleID, "--channel", channel, "--url", s.apns, "--json"] + key)
        XCTAssertTrue(get.stdout.contains(#""storage_policy":"most-recent""#), get.stdout)
        let list = try ProcessRunner.pushlab(["channels", "list", "--bundle-id", Fixtures.bundleID, "--url", s.apns] + key)
        XCTAssertEqual(list.stdout.trimmingCharacters(in: .whitespacesAndNewlines), channel)

        for phone in ["phone-1", "phone-2", "phone-3"] {
            let start = try ProcessRunner.pushlab(["activity", "start", "--url", s.google, "--ca-file", Fixtures.caFile, "--device", phone,
                                                   "--attributes-type", "DeliveryAttributes",
                                                   "--attributes", Fixtures.path("payloads/live-activities/attributes.json"),
                                                   "--content-state", Fixtures.path("payloads/live-activities/state-placed.json"), "--channel", channel])
            XCTAssertEqual(start.status, 0, start.stderr)
        }
        let lonely = try ProcessRunner.pushlab(["activity", "start", "--url", s.google, "--ca-file", Fixtures.caFile, "--device", "phone-4",
                                                "--attributes-type", "DeliveryAttributes",
                                                "--content-state", Fixtures.path("payloads/live-activities/state-placed.json"), "--push-token"])
        XCTAssertEqual(lonely.status, 0, lonely.stderr)
        let dir = Fixtures.temporaryDirectory("live")
        defer { try? FileManager.default.removeItem(at: dir) }
        let state = dir.appendingPathComponent("state.json")
        try Data(#"{"status":"on the way","minutesAway":12}"#.utf8).write(to: state)
        let send = try ProcessRunner.pushlab(["send", "apns", "--url", s.apns, "--topic", Fixtures.bundleID, "--no-history", "--channel", channel,
                                              "--live-activity", "update", "--content-state", state.path] + key)
        XCTAssertEqual(send.status, 0, send.stdout + send.stderr)
        let start = try ProcessRunner.pushlab(["send", "apns", "--url", s.apns, "--topic", Fixtures.bundleID, "--no-history", "--channel", channel,
                                               "--live-activity", "start", "--content-state", state.path] + key)
        XCTAssertEqual(start.status, 1, "a broadcast cannot start activities: \(start.stderr)")

        // Delivery is asynchronous: poll the phones until the three subscribed ones show the update.
        var updated = 0
        var listing = ""
        let deadline = Date().addingTimeInterval(10)
        repeat {
            listing = try ProcessRunner.pushlab(["activity", "list", "--url", s.google, "--ca-file", Fixtures.caFile]).stdout
            updated = listing.split(separator: "\n").filter { $0.contains("on the way") }.count
        } while updated < 3 && Date() < deadline
        XCTAssertEqual(updated, 3, listing)
        XCTAssertTrue(listing.contains("phone-4") && listing.split(separator: "\n").contains { $0.hasPrefix("phone-4") && $0.contains("placed") }, listing)

        let delete = try ProcessRunner.pushlab(["channels", "delete", "--bundle-id", Fixtures.bundleID, "--channel", channel, "--url", s.apns] + key)
        XCTAssertEqual(delete.status, 0, delete.stderr)
        let gone = try ProcessRunner.pushlab(["channels", "get", "--bundle-id", Fixtures.bundleID, "--channel", channel, "--url", s.apns] + key)
        XCTAssertEqual(gone.status, 1)
        XCTAssertTrue(gone.stderr.contains("ChannelNotRegistered"), gone.stderr)
        XCTAssertEqual(s.process.interrupt(), 0)
    }

    func testActivityRunAndTapExitStatuses() throws {
        let la = { (f: String) in Fixtures.path("payloads/live-activities/\(f)") }
        let run = try ProcessRunner.pushlab(["activity", "run", "--app", Fixtures.path("payloads/apps/live.json"), la("start.json"), la("update.json"),
                                             la("update-older.json") + "@+700", la("end.json"), "--until", "+3000"])
        XCTAssertEqual(run.status, 1, "one push was older than the shown state: \(run.stdout)")
        XCTAssertTrue(run.stdout.contains("is older than the shown state's"), run.stdout)
        XCTAssertTrue(run.stdout.contains("dismissed"), run.stdout)
        let clean = try ProcessRunner.pushlab(["activity", "run", "--app", Fixtures.path("payloads/apps/live.json"), la("start.json"), la("update.json"), la("end.json")])
        XCTAssertEqual(clean.status, 0, clean.stdout)

        let url = "cio-live-activity://open?cio_delivery_id=D1&cio_redirect=pushlab://orders/1"
        let once = try ProcessRunner.pushlab(["activity", "tap", url, "--app", Fixtures.path("payloads/apps/live.json"), "--warm", "--json"])
        XCTAssertEqual(once.status, 0, once.stdout)
        XCTAssertTrue(once.stdout.contains(#""destination" : "pushlab://orders/1""#) || once.stdout.contains(#""destination": "pushlab://orders/1""#), once.stdout)
        let twice = try ProcessRunner.pushlab(["activity", "tap", url, "--app", Fixtures.path("payloads/apps/live-expo-double.json")])
        XCTAssertEqual(twice.status, 1)
        XCTAssertTrue(twice.stdout.contains("double handling"), twice.stdout)
        let usage = try ProcessRunner.pushlab(["activity", "tap", url])
        XCTAssertEqual(usage.status, 2)
        XCTAssertTrue(usage.stderr.contains("--app"), usage.stderr)
    }
}
