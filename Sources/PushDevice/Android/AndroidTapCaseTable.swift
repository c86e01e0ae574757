import Foundation
import PushCore

/// The Android tap table (`payloads/taps/android-cases.json`): an app profile, and cases of
/// profile overrides, a tap and the expected outcome. Fields left out of `expect` are not
/// checked; `diagnostics` is compared as the exact list of codes.
public struct AndroidTapCaseTable: Sendable {
    public struct Case: Sendable {
        public var name: String
        public var why: String
        public var profile: AndroidAppProfile
        public var tap: AndroidTap
        public var expect: JSONObject
    }

    public var cases: [Case]

    /// Loads the table; `appBase` resolves the table's relative `app` path (the repo root).
    public static func load(path: String, appBase: URL? = nil) throws(AppProfileError) -> AndroidTapCaseTable {
        guard let bytes = FileManager.default.contents(atPath: path) else { throw .unreadableCaseTable(path: path) }
        let root: JSONValue
        do { root = try JSONParser().parse(Array(bytes)).root } catch {
            throw .malformedJSON(source: path, detail: "\(error)")
        }
        guard let appPath = root["app"]?.stringValue else { throw .missingField(source: path, pointer: "/app", why: "the app profile the cases start from") }
        let base = appBase ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let appURL = appPath.hasPrefix("/") ? URL(fileURLWithPath: appPath) : base.appendingPathComponent(appPath)
        guard let appBytes = FileManager.default.contents(atPath: appURL.path) else {
            throw .invalidValue(source: path, pointer: "/app", detail: "cannot read the app profile \(appURL.path) it names (relative paths start at the current directory)")
        }
        let appJSON: JSONValue
        do { appJSON = try JSONParser().parse(Array(appBytes)).root } catch { throw .malformedJSON(source: appURL.path, detail: "\(error)") }
        guard let list = root["cases"]?.arrayValue else { throw .missingField(source: path, pointer: "/cases", why: "the list of cases") }
        var cases: [Case] = []
        for (i, item) in list.enumerated() {
            let pointer = "/cases/\(i)"
            guard let name = item["name"]?.stringValue else { throw .missingField(source: path, pointer: pointer + "/name", why: "every case has a name") }
            guard var merged = appJSON.objectValue else { throw .malformedJSON(source: appURL.path, detail: "not an object") }
            for m in item["profile"]?.objectValue?.members ?? [] { merged[m.key] = m.value }
            let profile = try AndroidAppProfile.decode(JSONValue.object(merged).minifiedBytes(), source: "\(path)\(pointer)/profile")
            let tap: AndroidTap
            do {
                tap = try JSONDecoder().decode(AndroidTap.self, from: Data((item["tap"] ?? .object(JSONObject())).minifiedBytes()))
            } catch let error as DecodingError {
                throw AppProfileError.from(error, source: "\(path)\(pointer)/tap")
            } catch { throw .malformedJSON(source: path, detail: "\(error)") }
            guard let expect = item["expect"]?.objectValue else { throw .missingField(source: path, pointer: pointer + "/expect", why: "the expected outcome") }
            cases.append(Case(name: name, why: item["why"]?.stringValue ?? "", profile: profile, tap: tap, expect: expect))
        }
        return AndroidTapCaseTable(cases: cases)
    }

    /// Runs one case: its outcome and the expected fields it got wrong (empty = pass).
    public static func run(_ c: Case) -> (AndroidTapOutcome, [String]) {
        let outcome = AndroidTapRouter(profile: c.profile).tap(c.tap)
        var wrong: [String] = []
        func check(_ key: String, _ actual: JSONValue) {
            guard let want = c.expect[key] else { return }
            if want != actual { wrong.append("\(key): expected \(String(decoding: want.minifiedBytes(), as: UTF8.self)), got \(String(decoding: actual.minifiedBytes(), as: UTF8.self))") }
        }
        check("route", .string(outcome.route.rawValue))
        check("target", outcome.target.map(JSONValue.string) ?? .null)
        check("delivery", .string(outcome.delivery))
        check("coldStart", .bool(outcome.coldStart))
        check("stack", .array(JSONArray(outcome.stack.map(JSONValue.string))))
        check("openedMetrics", .number(JSONNumber(outcome.openedMetrics)))
        check("diagnostics", .array(JSONArray(outcome.diagnostics.map { JSONValue.string($0.code) })))
        return (outcome, wrong)
    }
}
