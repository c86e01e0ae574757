import Foundation
import TestSupport
import XCTest

/// Completions and man pages are generated from the option declarations; these tests hold them
/// against what `--help` prints, so neither can drift.
final class CompletionAndManPageTests: XCTestCase {
    /// Every command path and its options, read from `pushlab --help` and `pushlab <cmd> --help`.
    private func commandsFromHelp() throws -> [(path: [String], options: [String])] {
        let overview = try ProcessRunner.pushlab(["--help"]).stdout
        let paths = overview.split(separator: "\n", omittingEmptySubsequences: false).drop { !$0.hasPrefix("commands:") }.dropFirst()
            .prefix { !$0.isEmpty }
            .compactMap { line -> [String]? in
                let words = line.trimmingCharacters(in: .whitespaces).components(separatedBy: "  ")[0]
                return words.isEmpty ? nil : words.split(separator: " ").map(String.init)
            }
        XCTAssertGreaterThan(paths.count, 10)
        return try paths.map { path in
            let help = try ProcessRunner.pushlab(path + ["--help"]).stdout
            let options = help.split(separator: "\n").drop { !$0.hasPrefix("options:") }.dropFirst()
                .flatMap { line -> [String] in
                    let left = line.trimmingCharacters(in: .whitespaces).components(separatedBy: "  ")[0]
                    return left.split(separator: ",").compactMap { part in
                        let name = part.trimmingCharacters(in: .whitespaces).split(separator: " ").first.map(String.init)
                        return name?.hasPrefix("-") == true ? name : nil
                    }
                }
            return (path, options)
        }
    }

    func testBashCompletionLoadsAndListsEveryCommandAndOption() throws {
        let dir = Fixtures.temporaryDirectory("pushlab-completion")
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = dir.appendingPathComponent("pushlab.bash").path
        let generated = try ProcessRunner.pushlab(["completions", "bash"])
        XCTAssertEqual(generated.status, 0, generated.stderr)
        try Data(generated.stdout.utf8).write(to: URL(fileURLWithPath: script))

        var probe = "source \(script)\ncomplete -p pushlab\n"
        probe += "COMP_WORDS=(pushlab ''); COMP_CWORD=1; _pushlab; echo \"top: ${COMPREPLY[*]}\"\n"
        let commands = try commandsFromHelp()
        for (path, _) in commands {
            let words = (["pushlab"] + path + ["-"]).map { "'\($0)'" }.joined(separator: " ")
            probe += "COMP_WORDS=(\(words)); COMP_CWORD=\(path.count + 1); _pushlab; echo \"\(path.joined(separator: " ")): ${COMPREPLY[*]}\"\n"
        }
        let r = try ProcessRunner.run("/bin/bash", ["-c", probe])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("complete -o filenames -F _pushlab pushlab"), r.stdout)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        let top = Set((lines.first { $0.hasPrefix("top: ") } ?? "").dropFirst(5).split(separator: " ").map(String.init))
        for (path, options) in commands {
            XCTAssertTrue(top.contains(path[0]), "\(path[0]) missing from the first word's completions")
            let line = lines.first { $0.hasPrefix(path.joined(separator: " ") + ": ") } ?? ""
            let offered = Set(line.dropFirst(path.joined(separator: " ").count + 2).split(separator: " ").map(String.init))
            for option in options where option.hasPrefix("--") {
                XCTAssertTrue(offered.contains(option), "pushlab \(path.joined(separator: " ")): \(option) not completed")
            }
        }
    }

    /// Words a command takes as its first argument are completed (`relay keys create|list|revoke`,
    /// not file names), and so are profile names (`profile use`, `--profile`), read as you type.
    func testBashCompletesRelayKeysWordsAndProfileNames() throws {
        let dir = Fixtures.temporaryDirectory("pushlab-completion")
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("config.json").path
        let env = ["PUSHLAB_CONFIG": config]
        for name in ["lab", "prod"] {
            let add = try ProcessRunner.pushlab(["profile", "add", name, "--key", Fixtures.apnsKey, "--team-id", Fixtures.apnsTeamID,
                                                 "--bundle-id", Fixtures.bundleID, "--sandbox"], environment: env)
            XCTAssertEqual(add.status, 0, add.stderr)
        }
        let script = dir.appendingPathComponent("pushlab.bash").path
        let generated = try ProcessRunner.pushlab(["completions", "bash"])
        XCTAssertEqual(generated.status, 0, generated.stderr)
        try Data(generated.stdout.utf8).write(to: URL(fileURLWithPath: script))
        // The script calls `pushlab` by name, as an installed one does.
        let bin = URL(fileURLWithPath: Fixtures.pushlabBinary).deletingLastPathComponent().path
        let probe = """
            export PATH="\(bin):$PATH" PUSHLAB_CONFIG="\(config)"
            cd "\(dir.path)"
            source \(script)
            COMP_WORDS=(pushlab relay keys ''); COMP_CWORD=3; _pushlab; echo "keys: ${COMPREPLY[*]}"
            COMP_WORDS=(pushlab profile use ''); COMP_CWORD=3; _pushlab; echo "use: ${COMPREPLY[*]}"
            COMP_WORDS=(pushlab send apns --profile p); COMP_CWORD=4; _pushlab; echo "profile: ${COMPREPLY[*]}"
            COMP_WORDS=(pushlab validate pushlab.b); COMP_CWORD=2; _pushlab; echo "files: ${COMPREPLY[*]}"
            COMP_WORDS=(pushlab retainza reproduce no-); COMP_CWORD=3; _pushlab; echo "scenario: ${COMPREPLY[*]}"
            """
        let r = try ProcessRunner.run("/bin/bash", ["-c", probe])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("keys: create list revoke\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("use: lab prod\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("profile: prod\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("files: pushlab.bash\n"), "a payload argument still completes file names: \(r.stdout)")
        // QA s12: `retainza reproduce` completes its scenario names (it offered file names).
        XCTAssertTrue(r.stdout.contains("scenario: no-sessions no-consent\n"), r.stdout)
    }

    func testZshAndFishScriptsNameEveryOption() throws {
        let commands = try commandsFromHelp()
        for shell in ["zsh", "fish"] {
            let r = try ProcessRunner.pushlab(["completions", shell])
            XCTAssertEqual(r.status, 0, r.stderr)
            for (path, options) in commands {
                XCTAssertTrue(r.stdout.contains(path.last!), "\(shell): \(path) missing")
                for option in options where option.hasPrefix("--") {
                    let spelled = shell == "fish" ? "-l \(option.dropFirst(2))" : "'\(option)["
                    XCTAssertTrue(r.stdout.contains(spelled), "\(shell): \(option) of \(path) missing")
                }
            }
        }
        let bad = try ProcessRunner.pushlab(["completions", "tcsh"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("bash, zsh, fish"), bad.stderr)
    }

    func testManPagesDocumentEveryOptionOfEveryCommand() throws {
        let dir = Fixtures.temporaryDirectory("pushlab-man")
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try ProcessRunner.pushlab(["man", "--dir", dir.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let overview = try String(contentsOfFile: dir.appendingPathComponent("pushlab.1").path, encoding: .utf8)
        for (path, options) in try commandsFromHelp() {
            let file = dir.appendingPathComponent("pushlab-\(path.joined(separator: "-")).1").path
            let page = try String(contentsOfFile: file, encoding: .utf8).replacingOccurrences(of: "\\-", with: "-")
            XCTAssertTrue(page.contains(".TH PUSHLAB-\(path.joined(separator: "-").uppercased()) 1"), file)
            for option in options { XCTAssertTrue(page.contains("\\fB\(option)\\fR"), "\(file): \(option) missing") }
            XCTAssertTrue(overview.contains("pushlab \(path.joined(separator: " "))"), "pushlab.1 misses \(path)")
        }
    }
}
