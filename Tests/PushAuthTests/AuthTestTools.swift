import Foundation
import TestSupport
import XCTest

/// Real tools the PushAuth tests check against: the `openssl` binary and the Python venv's
/// PyJWT / cryptography / google-auth.
enum AuthTestTools {
    static let openssl = "/usr/bin/openssl"

    /// Runs openssl; fails the test with its stderr when it exits non-zero.
    @discardableResult
    static func openssl(_ arguments: [String], stdin: String? = nil, file: StaticString = #filePath,
                        line: UInt = #line) throws -> ProcessResult {
        let result = try ProcessRunner.run(openssl, arguments, stdin: stdin)
        if result.status != 0 {
            XCTFail("openssl \(arguments.joined(separator: " ")) failed: \(result.stderr)", file: file, line: line)
        }
        return result
    }

    /// Runs a Python snippet with the venv's interpreter; `arguments` arrive as sys.argv[1:].
    static func python(_ script: String, _ arguments: [String] = [], file: StaticString = #filePath,
                       line: UInt = #line) throws -> ProcessResult {
        if !FileManager.default.isExecutableFile(atPath: Fixtures.python) {
            XCTFail("no Python venv at \(Fixtures.python): run scripts/bootstrap", file: file, line: line)
        }
        return try ProcessRunner.run(Fixtures.python, ["-c", script] + arguments)
    }

    static func write(_ text: String, to url: URL) throws {
        try Data(text.utf8).write(to: url)
    }

    static func read(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
