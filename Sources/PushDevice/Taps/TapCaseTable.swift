import Foundation
import PushCore
import PushHTTP

/// A table of taps to replay, each with its expected tier, destination and metric — shared by
/// the tests and `pushlab open --cases` (sample: `payloads/taps/cases.json`).
///
/// ```json
/// {"app": {…app profile without deepLinks…},
///  "profiles": {"name": {…deepLinks section…}},
///  "cases": [{"name": "…", "profile": "name", "link": "pushlab://x", "state": "cold",
///             "action": "default", "scene": false,
///             "expect": {"tier": 1, "destination": "app-route", "metric": "opened",
///                        "diagnostics": ["code", …]}}]}
/// ```
/// A case's push is a Customer.io push with `CIO.push.link` = `link` (no link when `link` is
/// null or absent); `"cio": false` makes it a push without the Customer.io keys.
public struct TapCaseTable: Sendable, Decodable {
    public var app: AppProfile?
    public var profiles: [String: DeepLinkProfile]
    public var cases: [TapCase]

    public struct TapCase: Sendable, Decodable {
        public var name: String
        public var profile: String
        public var link: String?
        public var cio: Bool
        public var state: AppLaunchState
        public var action: TapAction
        /// Adopt UIScene the usual way first (`DeepLinkProfile.adoptingUIScene()`).
        public var scene: Bool
        public var expect: Expectation?

        enum CodingKeys: String, CodingKey { case name, profile, link, cio, state, action, scene, expect }
        public init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            name = try c.decode(String.self, forKey: .name)
            profile = try c.decode(String.self, forKey: .profile)
            link = try c.decodeIfPresent(String.self, forKey: .link)
            cio = try c.decodeIfPresent(Bool.self, forKey: .cio) ?? true
            state = try c.decodeIfPresent(AppLaunchState.self, forKey: .state) ?? .warm
            action = try c.decodeIfPresent(TapAction.self, forKey: .action) ?? .default
            scene = try c.decodeIfPresent(Bool.self, forKey: .scene) ?? false
            expect = try c.decodeIfPresent(Expectation.self, forKey: .expect)
        }

        /// The APNs payload the case taps.
        public func payload(index: Int) -> JSONValue {
            var top = JSONObject()
            top["aps"] = .object(JSONObject([JSONMember(key: "alert", value: .object(JSONObject([
                JSONMember(key: "title", value: .string("Case \(index + 1)")),
                JSONMember(key: "body", value: .string(name)),
            ]))), JSONMember(key: "mutable-content", value: .number(JSONNumber(1)))]))
            if cio {
                let push = CIOPush(deliveryID: "case-\(index + 1)", deliveryToken: "token-case-\(index + 1)", link: link)
                for member in push.payloadMembers() { top[member.key] = member.value }
            } else if let link {
                top["link"] = .string(link)
            }
            return .object(top)
        }
    }

    public struct Expectation: Sendable, Decodable {
        /// 1, 2, 3, or null for "no tier ran".
        public var tier: Int?
        public var tierGiven: Bool
        public var destination: String?
        public var metric: String?
        /// Codes that must be among the outcome's diagnostics.
        public var diagnostics: [String]

        enum CodingKeys: String, CodingKey { case tier, destination, metric, diagnostics }
        public init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            tierGiven = c.contains(.tier)
            tier = try c.decodeIfPresent(Int.self, forKey: .tier)
            destination = try c.decodeIfPresent(String.self, forKey: .destination)
            metric = try c.decodeIfPresent(String.self, forKey: .metric)
            diagnostics = try c.decodeIfPresent([String].self, forKey: .diagnostics) ?? []
        }
    }

    /// The result of one case: its outcome and how it differs from the expectation.
    public struct Result: Sendable {
        public var index: Int
        public var testCase: TapCase
        public var outcome: TapOutcome
        /// Empty when the outcome matches (or there is no expectation).
        public var mismatches: [String]
        public var passed: Bool { mismatches.isEmpty }
    }

    public static func load(path: String) throws -> TapCaseTable {
        guard let data = FileManager.default.contents(atPath: path) else { throw TapCaseTableError.unreadable(path: path) }
        do {
            return try JSONDecoder().decode(TapCaseTable.self, from: data)
        } catch let error as DecodingError {
            throw TapCaseTableError.invalid(path: path, detail: TapCaseTableError.describe(error))
        }
    }

    /// Checks profile references before anything runs.
    public func check(source: String) throws {
        for (i, c) in cases.enumerated() where profiles[c.profile] == nil {
            throw TapCaseTableError.unknownProfile(path: source, pointer: "/cases/\(i)/profile", name: c.profile,
                                                   known: profiles.keys.sorted())
        }
    }

    /// Replays every case against `app` (the table's own `app` wins when present), each with a
    /// fresh pipeline over `transport` (nothing is flushed) and a fixed clock.
    public func run(app fallback: AppProfile, transport: any HTTPTransport) async -> [Result] {
        let base = app ?? fallback
        var results: [Result] = []
        for (i, c) in cases.enumerated() {
            var profile = profiles[c.profile] ?? DeepLinkProfile()
            if c.scene { profile = profile.adoptingUIScene() }
            let clock = ManualTimeSource()
            let pipeline = EventPipeline(configuration: EventPipelineConfiguration(profile: base), transport: transport, time: clock)
            let handler = TapHandler(app: base, deepLinks: profile, pipeline: pipeline,
                                     identity: PipelineIdentity(anonymousId: "anon-cases"), time: clock)
            let outcome = await handler.handle(payload: c.payload(index: i), tap: Tap(action: c.action, state: c.state))
            results.append(Result(index: i, testCase: c, outcome: outcome, mismatches: Self.compare(outcome, c.expect)))
        }
        return results
    }

    static func compare(_ outcome: TapOutcome, _ expect: Expectation?) -> [String] {
        guard let expect else { return [] }
        var out: [String] = []
        if expect.tierGiven && expect.tier != outcome.tier?.rawValue {
            out.append("tier: expected \(expect.tier.map(String.init) ?? "none"), got \(outcome.tier.map { String($0.rawValue) } ?? "none")")
        }
        if let d = expect.destination, d != outcome.destination.kind {
            out.append("destination: expected \(d), got \(outcome.destination.kind)")
        }
        if let m = expect.metric, m != outcome.metric {
            out.append("metric: expected \(m), got \(outcome.metric)")
        }
        let codes = Set(outcome.diagnostics.map(\.code))
        for code in expect.diagnostics where !codes.contains(code) {
            out.append("diagnostic \(code) expected, got [\(outcome.diagnostics.map(\.code).joined(separator: ", "))]")
        }
        return out
    }
}

/// Why a case table could not be used.
public enum TapCaseTableError: Error, Sendable, CustomStringConvertible {
    case unreadable(path: String)
    case invalid(path: String, detail: String)
    case unknownProfile(path: String, pointer: String, name: String, known: [String])

    public var reason: String {
        switch self {
        case .unreadable(let path): return "\(path): cannot read the case table"
        case .invalid(let path, let detail): return "\(path): \(detail)"
        case .unknownProfile(let path, let pointer, let name, _): return "\(path): \(pointer): no profile named '\(name)'"
        }
    }

    public var fix: String {
        switch self {
        case .unreadable: return "check the path given to --cases (sample: payloads/taps/cases.json)"
        case .invalid: return "see payloads/taps/cases.json and docs/deep-links.md for the table format"
        case .unknownProfile(_, _, _, let known): return "use one of: \(known.joined(separator: ", "))"
        }
    }

    public var description: String { "\(reason)\n  fix: \(fix)" }

    static func describe(_ error: DecodingError) -> String {
        func pointer(_ path: [CodingKey]) -> String {
            "/" + path.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: "/")
        }
        switch error {
        case .keyNotFound(let key, let ctx): return "\(pointer(ctx.codingPath + [key])) is missing"
        case .typeMismatch(_, let ctx), .valueNotFound(_, let ctx):
            return "\(pointer(ctx.codingPath)): \(ctx.debugDescription)"
        case .dataCorrupted(let ctx):
            return ctx.codingPath.isEmpty ? "not valid JSON" : "\(pointer(ctx.codingPath)): \(ctx.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}
