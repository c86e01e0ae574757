import Foundation
import PushDevice
import PushHTTP

/// `pushlab open --cases FILE`: replays a tap table and prints one row per case.
enum OpenCaseMatrix {
    static func run(path: String, app: AppProfile?, json: Bool) async throws -> Int32 {
        let table: TapCaseTable
        do {
            table = try TapCaseTable.load(path: path)
            try table.check(source: path)
        } catch let error as TapCaseTableError {
            throw UsageError(error.reason, fix: error.fix)
        }
        guard let base = app ?? table.app else {
            throw UsageError("\(path) has no \"app\" and no --app was given", fix: "add an app profile under \"app\" or pass --app")
        }
        let results = await table.run(app: base, transport: UnsentTransport())
        if json {
            emit(try renderJSON(results.map(Row.init)))
        } else {
            emit(matrix(results))
        }
        return results.allSatisfy(\.passed) ? ExitStatus.success : ExitStatus.failure
    }

    struct Row: Encodable {
        var index: Int
        var name: String
        var profile: String
        var scene: Bool
        var link: String?
        var outcome: TapOutcome
        var passed: Bool
        var mismatches: [String]

        init(_ r: TapCaseTable.Result) {
            index = r.index + 1
            name = r.testCase.name
            profile = r.testCase.profile
            scene = r.testCase.scene
            link = r.testCase.link
            outcome = r.outcome
            passed = r.passed
            mismatches = r.mismatches
        }
    }

    static func matrix(_ results: [TapCaseTable.Result]) -> String {
        let header = ["#", "profile", "link", "state", "action", "tier", "destination", "metric", "check"]
        var rows: [[String]] = [header]
        for r in results {
            let c = r.testCase
            rows.append([
                String(r.index + 1),
                c.profile + (c.scene ? " +scene" : ""),
                truncate(c.cio ? (c.link ?? "(none)") : "(not CIO) " + (c.link ?? ""), 38),
                c.state.rawValue,
                c.action.description,
                r.outcome.tier.map { String($0.rawValue) } ?? "-",
                r.outcome.destination.kind,
                r.outcome.metric,
                c.expect == nil ? "-" : (r.passed ? "ok" : "FAIL"),
            ])
        }
        let widths = header.indices.map { col in rows.map { $0[col].count }.max() ?? 0 }
        var out = rows.map { row in
            zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces)
        }
        let failed = results.filter { !$0.passed }
        out.append("")
        out.append("\(results.count) cases, \(results.count - failed.count) as expected, \(failed.count) not")
        for r in failed {
            out.append("case \(r.index + 1) '\(r.testCase.name)': \(r.mismatches.joined(separator: "; "))")
        }
        return out.joined(separator: "\n")
    }

    static func truncate(_ s: String, _ n: Int) -> String { s.count <= n ? s : String(s.prefix(n - 1)) + "…" }
}
