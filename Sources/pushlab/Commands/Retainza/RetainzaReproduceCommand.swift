import Foundation
import OfflineLab
import PushDevice

/// `pushlab retainza reproduce NAME`: one push-side row of the Retainza troubleshooting table,
/// end to end on an offline lab.
enum RetainzaReproduceCommand: Command {
    static let path = ["retainza", "reproduce"]
    static let positionalUsage = "NAME"
    static let positionalCompletion = PositionalCompletion.words(RetainzaScenario.allCases.map(\.rawValue))
    static let summary = "Reproduce a Retainza troubleshooting symptom end to end (FCM, the virtual iPhone, the collector) and name its cause."
    static let discussion = """
    Starts the gateway emulator and the collector on free loopback ports, registers a virtual
    iPhone whose app embeds the Retainza SDK (the scenario's sample profile, or --app), sends
    Retainza pushes through the FCM client and the gateway's FCM route, taps them, and reads
    what arrived at the collector's modelled ingest API. Scenarios: \(RetainzaScenario.allCases.map(\.rawValue).joined(separator: ", ")).
    With --app YOUR-PROFILE a scenario checks your integration: exit 0 when the symptom showed
    (reproduced), 1 when it did not (the profile does not have the problem). See docs/retainza.md.
    """
    static let app = Option.string("--app", name: "FILE", help: "The Retainza app profile.", described: "the scenario's sample in payloads/apps/retainza/")
    static let json = Option.flag("--json", help: "Print the report as JSON.")
    static let list = Option.flag("--list", help: "List the scenarios with their symptom.")
    static let options: [any OptionDeclaration] = [app, list, json]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        if args[list] {
            emit(RetainzaScenario.allCases.map { "\($0.rawValue)\t\($0.symptom)\t\($0.sampleProfile)" }.joined(separator: "\n") + "\n")
            return ExitStatus.success
        }
        let names = RetainzaScenario.allCases.map(\.rawValue).joined(separator: ", ")
        guard args.positionals.count == 1 else {
            throw UsageError(args.positionals.isEmpty ? "which scenario? one of: \(names)" : "one scenario at a time, got \(args.positionals.count)",
                             fix: "e.g. pushlab retainza reproduce cold-start-open (--list shows them)")
        }
        guard let scenario = RetainzaScenario(rawValue: args.positionals[0]) else {
            throw UsageError("unknown scenario '\(args.positionals[0])'; one of: \(names)", fix: "pushlab retainza reproduce --list")
        }
        let root = try ProjectFiles.require("lab files")
        let path = try args[app] ?? root + "/" + scenario.sampleProfile
        let profile = try RetainzaInputs.profile(path)
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("pushlab-retainza-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: work) }
        StandardStreams.removeOnClosedPipe(work)
        let lab = try Lab(configuration: LabConfiguration(certsDirectory: root + "/certs", assetsDirectory: root + "/payloads/assets", workDirectory: work))
        try lab.start()
        let report: RetainzaScenarioReport
        do { report = try await scenario.run(lab: lab, profile: profile, profilePath: path) } catch {
            await lab.stop()
            throw error
        }
        await lab.stop()
        if args[json] {
            struct Output: Encodable {
                var scenario: String, symptom: String, app: String, reproduced: Bool, observed: [String], cause: String, fix: String
                var timeline: [RetainzaTimelineEntry]
            }
            emit(try renderJSON(Output(scenario: scenario.rawValue, symptom: scenario.symptom, app: path, reproduced: report.reproduced,
                                       observed: report.observed, cause: report.cause, fix: report.fix, timeline: report.timeline)))
        } else {
            let start = report.timeline.first?.at ?? Date()
            var out = "retainza reproduce \(scenario.rawValue): \"\(scenario.symptom)\"\napp: \(path)\n\ntimeline (virtual iPhone):\n"
            for e in report.timeline {
                let kind = e.kind.padding(toLength: 8, withPad: " ", startingAt: 0)
                out += String(format: "  t+%5.0fs  ", e.at.timeIntervalSince(start)) + kind + " " + e.text + "\n"
            }
            out += "\nobserved:\n" + report.observed.map { "  \($0)\n" }.joined()
            out += "\n" + (report.reproduced ? "symptom reproduced\ncause: \(report.cause)\nfix: \(report.fix)\n" : "symptom not reproduced: \(report.cause)\n")
            writeOutput(out)
        }
        return report.reproduced ? ExitStatus.success : ExitStatus.failure
    }
}
