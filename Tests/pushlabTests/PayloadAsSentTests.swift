import Foundation
import TestSupport
import XCTest

/// What `validate` judges is what `send` sends (issue 36, item 6), and the sample payloads'
/// images come from the emulator's own image server (item 11).
final class PayloadAsSentTests: XCTestCase {
    private let token = String(repeating: "ab", count: 32)

    private func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    /// A 4,3xx-byte indented file whose minified form fits: validate says "ok" with the minified
    /// size, and send apns sends exactly that many bytes (the emulator records them), instead of
    /// the file as written and a PayloadTooLarge.
    func testAnIndentedPayloadOver4096BytesGoesOutMinifiedAsValidateMeasuredIt() throws {
        let dir = Fixtures.temporaryDirectory("as-sent")
        defer { try? FileManager.default.removeItem(at: dir) }
        let body = String(repeating: "x", count: 3_900)
        let text = "{\n" + String(repeating: " ", count: 400) + "\"aps\": {\n    \"alert\": {\n      \"title\": \"t\",\n      \"body\": \"\(body)\"\n    }\n  }\n}\n"
        let minified = #"{"aps":{"alert":{"title":"t","body":"\#(body)"}}}"#.utf8.count
        XCTAssertGreaterThan(text.utf8.count, 4_096, "the file as written is over the limit")
        XCTAssertLessThan(minified, 4_096, "its minified form fits")
        let file = dir.appendingPathComponent("indented.json").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))

        let validated = try ProcessRunner.pushlab(["validate", file])
        XCTAssertEqual(validated.status, 0, validated.stdout + validated.stderr)
        XCTAssertTrue(validated.stdout.contains("\(minified)/4096 bytes minified, as sent"), validated.stdout)
        let report = try ProcessRunner.pushlab(["validate", file, "--json"])
        let first = try XCTUnwrap((try json(report.stdout)["files"] as? [[String: Any]])?.first, report.stdout)
        XCTAssertEqual(first["bytes"] as? Int, minified)
        XCTAssertEqual(first["bytesAs"] as? String, "minified, as sent")

        let server = try LabServer()
        defer { server.stop() }
        let sent = try ProcessRunner.pushlab(["send", "apns", file, "--url", server.apnsURL, "--ca-file", Fixtures.caFile,
                                              "--key", Fixtures.apnsKey, "--team-id", Fixtures.apnsTeamID, "--topic", Fixtures.bundleID,
                                              "--token", token, "--no-history", "--json"])
        XCTAssertEqual(sent.status, 0, sent.stdout + sent.stderr)
        XCTAssertEqual(try json(sent.stdout)["outcome"] as? String, "accepted", sent.stdout)
        let pushes = try ProcessRunner.run("/usr/bin/curl", ["-s", "--cacert", Fixtures.caFile, server.googleURL + "/admin/pushes"])
        let records = try XCTUnwrap(try json(pushes.stdout)["pushes"] as? [[String: Any]], pushes.stdout)
        let payload = try XCTUnwrap(records.last?["payload"] as? String, "\(records)")
        XCTAssertEqual(payload.utf8.count, minified, "the emulator received the bytes validate measured")
        XCTAssertEqual(try json(payload) as NSDictionary, try json(text) as NSDictionary, "the same JSON, minified")
    }

    /// The README sends its samples to `pushlab serve` and `serve --console`: every image they
    /// name is on the emulator's image server at its default port, and the file exists there.
    func testEverySamplePayloadsImageIsOnTheEmulatorsImageServer() throws {
        let help = try ProcessRunner.pushlab(["serve", "--help"])
        XCTAssertEqual(help.status, 0, help.stderr)
        XCTAssertTrue(help.stdout.contains("(default: 8443)"), "the samples name port 8443, serve's default --port: \(help.stdout)")
        let fm = FileManager.default
        var checked = 0
        for folder in ["apns", "fcm", "nse", "simulator", "taps", "live-activities"] {
            let dir = Fixtures.path("payloads/\(folder)")
            for name in try fm.contentsOfDirectory(atPath: dir) where name.hasSuffix(".json") || name.hasSuffix(".apns") {
                let text = try String(contentsOfFile: dir + "/" + name, encoding: .utf8)
                let regex = try NSRegularExpression(pattern: #""(image|attachment-url)"\s*:\s*"([^"]+)""#)
                for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    let url = String(text[Range(match.range(at: 2), in: text)!])
                    let prefix = "https://localhost:8443/images/"
                    XCTAssertTrue(url.hasPrefix(prefix), "payloads/\(folder)/\(name): \(url) is not on the emulator's image server")
                    if url.hasPrefix(prefix) {
                        let asset = Fixtures.path("payloads/assets/" + url.dropFirst(prefix.count))
                        XCTAssertTrue(fm.fileExists(atPath: asset), "payloads/\(folder)/\(name): \(asset) does not exist")
                    }
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThanOrEqual(checked, 6, "the samples with images were found")
    }
}
