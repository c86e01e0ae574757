import Foundation
import TestSupport
import XCTest

/// docs/architecture.md's "Command-line surface" names only options the commands have: every
/// `--flag` on a `pushlab …` line there is in that command's `--help` (issue 36 item 12 found
/// `serve --fcm-port` and `--collector-port`, which never existed).
final class ArchitectureSurfaceTests: XCTestCase {
    func testEveryFlagInTheCommandLineSurfaceExists() throws {
        let text = try String(contentsOfFile: Fixtures.path("docs/architecture.md"), encoding: .utf8)
        let section = try XCTUnwrap(text.components(separatedBy: "## Command-line surface").dropFirst().first)
        let block = try XCTUnwrap(section.components(separatedBy: "```").dropFirst().first, "the surface's code block")
        // Join continuation lines (ending in \) to the line they continue.
        let lines = block.replacingOccurrences(of: "\\\n", with: " ").split(separator: "\n").map(String.init)
        let flag = try NSRegularExpression(pattern: #"--[a-z][a-z0-9-]*"#)
        var checked = 0
        for line in lines where line.hasPrefix("pushlab ") {
            let code = line.components(separatedBy: "#").first ?? line
            let flags = flag.matches(in: code, range: NSRange(code.startIndex..., in: code)).map { String(code[Range($0.range, in: code)!]) }
            if flags.isEmpty { continue }
            // The command is the longest run of plain words whose --help answers.
            let words = line.split(separator: " ").dropFirst().prefix { $0.allSatisfy { $0.isLetter } }.map(String.init)
            var help: String?
            for n in stride(from: words.count, through: 1, by: -1) {
                let r = try ProcessRunner.pushlab(Array(words.prefix(n)) + ["--help"])
                if r.status == 0 { help = r.stdout; break }
            }
            let usage = try XCTUnwrap(help, "no command found for: \(line)")
            for name in flags {
                XCTAssertTrue(usage.contains(name), "docs/architecture.md: `\(line.trimmingCharacters(in: .whitespaces))` names \(name), which that command does not have")
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 20, "the surface's flags were read")
    }
}
