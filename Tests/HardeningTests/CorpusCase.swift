import Foundation
import TestSupport
import XCTest

/// One bad-input case of a CLI surface, read from `Tests/Corpus/<surface>/manifest.json`.
/// Placeholders in arguments, substrings and paths: `{corpus}` the surface's directory,
/// `{root}` the repository, `{tmp}` a fresh directory per case, `{token}` a 64-hex device token.
struct CLICase: Decodable {
    var name: String
    var args: [String]
    var stdin: String?
    /// Expected exit status (2 for every usage/input error).
    var exit: Int32
    /// Substrings the output must contain (stderr, plus stdout where the command reports there,
    /// as `validate` does): the input's name (file, flag or pointer) and the fix.
    var stderr: [String]
    /// Substrings that must appear exactly once (a reason or fix printed twice is noise).
    var once: [String]?
    /// Files that must not exist afterwards: a failing command leaves no half-written output.
    var absent: [String]?
    /// Files copied into `{tmp}` before the run, with the mode to give them (octal string).
    var setup: [SetupFile]?

    struct SetupFile: Decodable {
        var from: String
        var to: String
        var mode: String?
    }
}

enum Corpus {
    static let token = String(repeating: "3a5f", count: 16)

    static func directory(_ surface: String) -> URL {
        Fixtures.root.appendingPathComponent("Tests/Corpus/\(surface)")
    }

    static func load<T: Decodable>(_ surface: String, as: T.Type) throws -> [T] {
        let data = try Data(contentsOf: directory(surface).appendingPathComponent("manifest.json"))
        return try JSONDecoder().decode([T].self, from: data)
    }

    static func expand(_ text: String, surface: String, tmp: URL) -> String {
        text.replacingOccurrences(of: "{corpus}", with: directory(surface).path)
            .replacingOccurrences(of: "{root}", with: Fixtures.root.path)
            .replacingOccurrences(of: "{tmp}", with: tmp.path)
            .replacingOccurrences(of: "{token}", with: token)
    }

    /// Runs every case of `surface` through the built binary and returns how many ran.
    /// Besides each case's own expectations, every case must: exit with its status without a
    /// crash, print something on stderr that says how to fix it, and print nothing of the
    /// input's bytes that could be key material.
    @discardableResult
    static func runCLI(_ surface: String, file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        let cases = try load(surface, as: CLICase.self)
        XCTAssertFalse(cases.isEmpty, "no cases in \(surface)", file: file, line: line)
        for c in cases {
            let tmp = Fixtures.temporaryDirectory("corpus")
            defer { try? FileManager.default.removeItem(at: tmp) }
            for s in c.setup ?? [] {
                let to = expand(s.to, surface: surface, tmp: tmp)
                try FileManager.default.copyItem(atPath: expand(s.from, surface: surface, tmp: tmp), toPath: to)
                if let mode = s.mode.flatMap({ Int($0, radix: 8) }) {
                    try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: to)
                }
            }
            let args = c.args.map { expand($0, surface: surface, tmp: tmp) }
            let r = try ProcessRunner.pushlab(args, stdin: c.stdin, environment: ["APNS_KEY_PATH": "", "APNS_KEY_ID": "",
                                                                                 "APNS_TEAM_ID": "", "APNS_TOPIC": "",
                                                                                 "GOOGLE_APPLICATION_CREDENTIALS": ""],
                                              timeout: 30)
            let output = r.stderr + r.stdout
            let label = "\(surface)/\(c.name): pushlab \(args.joined(separator: " "))\n--- stderr:\n\(r.stderr)--- stdout:\n\(r.stdout.prefix(2000))"
            XCTAssertEqual(r.status, c.exit, "exit status of \(label)", file: file, line: line)
            XCTAssertTrue(output.lowercased().contains("fix"), "no fix in the message of \(label)", file: file, line: line)
            for needle in c.stderr.map({ expand($0, surface: surface, tmp: tmp) }) where !output.contains(needle) {
                XCTFail("'\(needle)' missing from \(label)", file: file, line: line)
            }
            for needle in (c.once ?? []).map({ expand($0, surface: surface, tmp: tmp) }) {
                let count = output.components(separatedBy: needle).count - 1
                XCTAssertEqual(count, 1, "'\(needle)' should appear once in \(label)", file: file, line: line)
            }
            for bad in ["Fatal error", "Stack dump", "BEGIN PRIVATE KEY", "BEGIN EC PRIVATE KEY", "BEGIN RSA PRIVATE KEY"] {
                XCTAssertFalse(output.contains(bad), "'\(bad)' in \(label)", file: file, line: line)
            }
            for path in (c.absent ?? []).map({ expand($0, surface: surface, tmp: tmp) }) {
                XCTAssertFalse(FileManager.default.fileExists(atPath: path), "\(path) left behind by \(label)", file: file, line: line)
            }
        }
        return cases.count
    }
}
