import PushCore
import TestSupport
import XCTest

/// The flag syntax and the JSON file parse to the same rules; bad specs fail naming the
/// flag or file, the field (JSON pointer) and what to write.
final class FaultPlanParsingTests: XCTestCase {
    func testFlagSyntaxParsesEveryField() throws {
        let plan = try FaultPlan.parse(flags: [
            "route=/v1/track,status=503,p=0.1,retry-after=2,reason=ServiceUnavailable",
            "route=/v1/b,method=post,requests=100-200,latency=uniform:50ms:300ms",
            "route=/3/device/{token},goaway-after=1000",
            "route=*,requests=7-,drop=connection",
            "stall=30s,latency=normal:200ms:50ms",
        ], seed: 7)
        XCTAssertEqual(plan.seed, 7)
        XCTAssertEqual(plan.rules, [
            FaultRule(route: "/v1/track", probability: 0.1, outcome: .status(503, retryAfter: 2, reason: "ServiceUnavailable")),
            FaultRule(route: "/v1/b", method: "POST", requests: RequestWindow(lower: 100, upper: 200),
                      latency: .uniform(.milliseconds(50), .milliseconds(300))),
            FaultRule(route: "/3/device/{token}", goAwayAfterStreams: 1000),
            FaultRule(route: "*", requests: RequestWindow(lower: 7, upper: nil), outcome: .drop(.connection)),
            FaultRule(route: "*", latency: .normal(mean: .milliseconds(200), deviation: .milliseconds(50)), outcome: .stall(.seconds(30))),
        ])
    }

    func testJSONFileAndFlagsGiveTheSamePlanAndRoundTrip() throws {
        let json = """
        {"seed": 42, "rules": [
          {"route": "/v1/track", "status": 503, "p": 0.1, "retry-after": 2},
          {"route": "/v1/b", "requests": "100-200", "latency": "uniform:50ms:300ms"},
          {"route": "/3/device/{token}", "goaway-after": 1000}
        ]}
        """
        let fromFile = try FaultPlan.parse(json: Array(json.utf8), source: "plan.json")
        let fromFlags = try FaultPlan.parse(flags: ["route=/v1/track,status=503,p=0.1,retry-after=2",
                                                    "route=/v1/b,requests=100-200,latency=uniform:50ms:300ms",
                                                    "route=/3/device/{token},goaway-after=1000"], seed: 42)
        XCTAssertEqual(fromFile, fromFlags)
        XCTAssertEqual(try FaultPlan.parse(json: Array(fromFile.jsonText.utf8), source: "again"), fromFile)
        XCTAssertEqual(try FaultPlan.parse(flags: fromFile.rules.map(\.flagText), seed: 42), fromFile)
        XCTAssertEqual(try JSONDecoder().decode(FaultPlan.self, from: Data(fromFile.jsonText.utf8)), fromFile)
    }

    func testLoadReadsAFile() throws {
        let dir = Fixtures.temporaryDirectory("faults")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("plan.json").path
        try #"{"seed": 3, "rules": [{"route": "/v1/track", "drop": "stream"}]}"#.write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertEqual(try FaultPlan.load(path: path), FaultPlan(seed: 3, rules: [FaultRule(route: "/v1/track", outcome: .drop(.stream))]))
        XCTAssertThrowsError(try FaultPlan.load(path: dir.appendingPathComponent("missing.json").path)) { error in
            XCTAssertTrue("\(error)".contains("missing.json: cannot read fault plan: no such file"))
        }
    }

    private func flagError(_ spec: String) -> FaultPlanError? {
        do {
            _ = try FaultPlan.parse(flags: [spec])
            return nil
        } catch {
            return error
        }
    }

    func testBadStatusNamesTheFieldAndTheFix() {
        let e = flagError("route=/v1/track,status=700")
        XCTAssertEqual(e, .invalidValue(location: "--fault 'route=/v1/track,status=700'", field: "status", value: "700",
                                        expected: "an HTTP status from 100 to 599"))
        XCTAssertEqual(e?.fix, "e.g. status=503 (100 to 599)")
    }

    func testProbabilityOutOfRange() {
        guard case .invalidValue(_, let field, let value, _)? = flagError("status=503,p=1.5") else { return XCTFail() }
        XCTAssertEqual(field, "p")
        XCTAssertEqual(value, "1.5")
    }

    func testUnknownFieldListsTheKnownOnes() {
        let e = flagError("route=/v1/track,statsu=503")
        XCTAssertEqual(e, .unknownField(location: "--fault 'route=/v1/track,statsu=503'", field: "statsu"))
        XCTAssertTrue(e!.fix.contains("status"))
    }

    func testRuleWithoutEffectIsRefused() {
        XCTAssertEqual(flagError("route=/v1/track,p=0.5"), .missingEffect(location: "--fault 'route=/v1/track,p=0.5'"))
    }

    func testTwoOutcomesInOneRuleAreRefused() {
        XCTAssertEqual(flagError("status=503,drop=stream"), .conflictingOutcomes(location: "--fault 'status=503,drop=stream'", fields: ["status", "drop"]))
    }

    func testRetryAfterNeedsAStatus() {
        guard case .invalidValue(_, "retry-after", _, _)? = flagError("drop=stream,retry-after=2") else { return XCTFail() }
    }

    func testPartWithoutEqualsIsMalformed() {
        XCTAssertEqual(flagError("route=/v1/track,503"), .malformedSpec(location: "--fault 'route=/v1/track,503'", part: "503"))
    }

    func testBadScheduleAndLatencyAndRoute() {
        guard case .invalidValue(_, "requests", _, _)? = flagError("requests=200-100,status=500") else { return XCTFail() }
        guard case .invalidValue(_, "latency", _, _)? = flagError("latency=uniform:300ms:50ms") else { return XCTFail() }
        guard case .invalidValue(_, "route", _, _)? = flagError("route=v1/track,status=500") else { return XCTFail() }
        guard case .invalidValue(_, "goaway-after", _, _)? = flagError("goaway-after=0") else { return XCTFail() }
    }

    func testSecondOfSeveralFlagsIsNumbered() {
        XCTAssertThrowsError(try FaultPlan.parse(flags: ["status=503", "status=abc"])) { error in
            XCTAssertEqual("\(error)", "--fault #2 'status=abc': field 'status' has 'abc', expected an HTTP status from 100 to 599")
        }
    }

    func testJSONErrorsCarryTheFileAndPointer() {
        func jsonError(_ text: String) -> String {
            do { _ = try FaultPlan.parse(json: Array(text.utf8), source: "plan.json"); return "no error" } catch { return "\(error)" }
        }
        XCTAssertEqual(jsonError(#"{"rules": [{"route": "/a", "status": "five hundred"}]}"#),
                       "plan.json /rules/0/status: field 'status' has 'five hundred', expected an HTTP status from 100 to 599")
        XCTAssertEqual(jsonError(#"{"rules": [{"route": "/a", "status": 500}, {"route": "/b", "drop": true}]}"#),
                       "plan.json /rules/1/drop: field 'drop' has '1', expected a string or a number")
        XCTAssertEqual(jsonError(#"{"seed": -1, "rules": []}"#), "plan.json /seed: field 'seed' has '-1', expected a whole number ≥ 0")
        XCTAssertEqual(jsonError(#"{"rule": []}"#), "plan.json /rule: unknown field 'rule'")
        XCTAssertEqual(jsonError(#"{"seed": 1}"#), "plan.json /rules: not a fault plan: \"rules\" must be an array of rule objects")
        XCTAssertTrue(jsonError("{oops").hasPrefix("plan.json: not a fault plan: invalid JSON"))
    }
}
