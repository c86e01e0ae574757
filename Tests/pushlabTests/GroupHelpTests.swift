import Foundation
@testable import pushlab
import TestSupport
import XCTest

/// Issue 36 item 10: a command group's `--help` (`pushlab android --help`, `channels --help` …)
/// lists the group's commands and exits 0, as git and argument-parser do; the group alone is
/// still a usage error (exit 2) that names its commands.
final class GroupHelpTests: XCTestCase {
    /// Every group: the first word of each command with more than one word (send, channels, …).
    static var groups: [String] {
        var seen: [String] = []
        for command in allCommands where command.path.count > 1 && !seen.contains(command.path[0]) { seen.append(command.path[0]) }
        return seen
    }

    func testEveryGroupHelpListsItsCommandsAndExitsZero() throws {
        XCTAssertTrue(Self.groups.contains("android") && Self.groups.contains("channels") && Self.groups.contains("activity"), "\(Self.groups)")
        for group in Self.groups {
            for flag in ["--help", "-h"] {
                let help = try ProcessRunner.pushlab([group, flag])
                XCTAssertEqual(help.status, 0, "pushlab \(group) \(flag): \(help.stderr)")
                XCTAssertEqual(help.stderr, "")
                for command in allCommands where command.path.first == group {
                    let name = command.path.joined(separator: " ")
                    XCTAssertTrue(help.stdout.contains("  \(name) ") && help.stdout.contains(command.summary), "pushlab \(group) \(flag) does not list \(name):\n\(help.stdout)")
                }
            }
        }
    }

    func testAGroupAloneIsAUsageErrorNamingItsCommands() throws {
        let r = try ProcessRunner.pushlab(["android"])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("android receive"), r.stderr)
    }
}
