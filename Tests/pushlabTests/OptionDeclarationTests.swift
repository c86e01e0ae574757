import Foundation
import TestSupport
import XCTest
@testable import pushlab

/// Every command's options are declared once, with their type and default (issue 15, item 6):
/// the default `--help` shows is the value the command reads when the flag is absent, and every
/// flag help names parses through its declaration.
final class OptionDeclarationTests: XCTestCase {
    private func parse(_ command: any Command.Type, _ arguments: [String]) throws -> ParsedArguments {
        try ArgumentParser.parse(arguments, options: command.optionSpecs, command: command.path.joined(separator: " "))
    }

    /// Where `command`'s help and its declarations disagree: a value option without a type, a
    /// shown default that is not the value read without the flag (or does not parse back to it),
    /// a value read although help shows no default. Counts the literal defaults checked.
    private func defaultProblems(_ command: any Command.Type, literal: inout Int) throws -> [String] {
        let name = "pushlab " + command.path.joined(separator: " ")
        let help = Help.render(command)
        let empty = try parse(command, [])
        var problems: [String] = []
        for spec in command.shownOptionSpecs where spec.valueName != nil {
            guard let read = spec.readText else {
                problems.append("\(name) \(spec.primary): not declared with a type (Option.int, Option.string, …)")
                continue
            }
            let absent = try read(empty)
            guard let shown = spec.defaultDescription else {
                // No default in help: without the flag (and its variable) the command reads nothing.
                if spec.environment == nil, absent != nil, absent != "" { problems.append("\(name) \(spec.primary) reads '\(absent!)' but help shows no default") }
                continue
            }
            if !help.contains("(default: \(shown))") { problems.append("\(name) \(spec.primary): help does not show its default \(shown)") }
            guard spec.literalDefault else { continue }  // a described default ("one per core") is computed by the declaration
            if absent != shown { problems.append("\(name) \(spec.primary): help says the default is \(shown), the command reads \(absent ?? "nothing")") }
            // The shown text is a value of the option, and it parses back to the same value.
            let given = try read(try parse(command, [spec.primary, shown]))
            if given != shown { problems.append("\(name) \(spec.primary) \(shown) reads back as \(given ?? "nothing")") }
            literal += 1
        }
        return problems
    }

    func testEveryDefaultShownInHelpIsTheValueTheCommandReadsWithoutTheFlag() throws {
        var literal = 0
        for command in allCommands { XCTAssertEqual(try defaultProblems(command, literal: &literal), []) }
        XCTAssertGreaterThan(literal, 60, "literal defaults checked")
    }

    /// The check finds drift: help that says 2197 while the code reads 2198, and an option
    /// declared without a type.
    func testTheCheckCatchesAHelpDefaultThatIsNotWhatTheCodeReads() throws {
        var literal = 0
        let problems = try defaultProblems(DriftingCommand.self, literal: &literal)
        XCTAssertEqual(problems, ["pushlab drift --port: help says the default is 2197, the command reads 2198",
                                  "pushlab drift --port 2197 reads back as 2198",
                                  "pushlab drift --host: not declared with a type (Option.int, Option.string, …)"])
    }

    func testEveryFlagNamedInHelpParses() throws {
        let everyName = Set(allCommands.flatMap { $0.optionSpecs.flatMap(\.names) } + commonOptions.flatMap(\.names))
        var parsed = 0
        for command in allCommands {
            let name = "pushlab " + command.path.joined(separator: " ")
            let help = Help.render(command)
            let lines = help.split(separator: "\n").drop { $0 != "options:" }.dropFirst()
            var listed: [String] = []
            for line in lines where line.hasPrefix("  -") {
                // "  --fault-seed, --seed N   Seed of …": the names before the value name.
                let left = String(line.dropFirst(2)).components(separatedBy: "  ")[0]
                for piece in left.components(separatedBy: ", ") { listed.append(String(piece.split(separator: " ")[0])) }
            }
            XCTAssertEqual(Set(listed), Set((command.shownOptionSpecs + commonOptions).flatMap(\.names)), "\(name): help lists exactly the declared options")
            for flag in listed {
                let spec = try XCTUnwrap((command.optionSpecs + commonOptions).first { $0.names.contains(flag) }, "\(name): help lists \(flag), which it does not declare")
                let arguments = spec.valueName == nil ? [flag] : [flag, spec.example ?? "x"]
                let args = try parse(command, arguments)
                XCTAssertTrue(args.isGiven(spec), "\(name) \(arguments)")
                _ = try spec.readText?(args)
                parsed += 1
            }
            // A flag the prose mentions is one this command or another command has.
            let mentioned = help.matches(of: try Regex("--[a-z][a-z0-9-]*")).map { String(help[$0.range]) }
            for flag in mentioned { XCTAssertTrue(everyName.contains(flag), "\(name): help mentions \(flag), which no command declares") }
        }
        XCTAssertGreaterThan(parsed, 300, "flags parsed")
    }

    func testARemovedOptionIsHiddenAndSaysWhy() throws {
        XCTAssertFalse(Help.render(SimulateCommand.self).contains("--time-scale"))
        XCTAssertThrowsError(try parse(SimulateCommand.self, ["--time-scale", "10"])) { error in
            let message = (error as? UsageError)?.description ?? ""
            XCTAssertTrue(message.contains("--time-scale was removed"), message)
            XCTAssertTrue(message.contains("fix: drop --time-scale"), message)
        }
        let r = try ProcessRunner.pushlab(["simulate", "--pushes", "2", "--time-scale", "10"])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("--time-scale was removed: the simulation runs on an emulated clock"), r.stderr)
    }

    func testABadValueNamesTheFlagAndTheRange() throws {
        let args = try parse(ServeCommand.self, ["--apns-port", "70000"])
        XCTAssertThrowsError(try args[ServeCommand.apnsPort]) { error in
            XCTAssertEqual((error as? UsageError)?.description,
                           "--apns-port must be between 0 and 65535, got 70000\n  fix: pass a value from 0 to 65535")
        }
        let r = try ProcessRunner.pushlab(["history", "--last", "many"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("pushlab history: --last takes a whole number, got 'many'\n  fix: pass a whole number from 1 to 1000000"), r.stderr)
    }
}

/// A command whose help and code disagree, the way hand-written defaults drift.
private enum DriftingCommand: Command {
    static let path = ["drift"]
    static let summary = "A command whose help says one default and whose code reads another."
    static let options: [any OptionDeclaration] = [
        OptionSpec(names: ["--port"], valueName: "PORT", help: "Port.", defaultDescription: "2197", literalDefault: true,
                   readText: { _ in "2198" }),
        OptionSpec(names: ["--host"], valueName: "ADDR", help: "Host.", defaultDescription: "127.0.0.1"),
    ]
    static func run(_ args: ParsedArguments) async throws -> Int32 { ExitStatus.success }
}
