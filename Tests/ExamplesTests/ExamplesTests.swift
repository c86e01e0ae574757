import Foundation
import TestSupport
import XCTest

/// Issue 17: every shell example of the README and the docs runs as written, offline, in a lab
/// this test starts, and prints what the docs show (the convention: docs/README.md).
final class ExamplesTests: XCTestCase {
    /// The repository's Markdown files a reader sees (tracked, plus new ones not ignored).
    static func markdownFiles() throws -> [String] {
        let list = try ProcessRunner.run("/usr/bin/git", ["-C", Fixtures.root.path, "ls-files", "--cached", "--others", "--exclude-standard", "*.md"])
        return list.stdout.split(separator: "\n").map(String.init)
            .filter { FileManager.default.fileExists(atPath: Fixtures.path($0)) }.sorted()
    }

    /// The files whose shell examples must run: README.md, docs/ and payloads/README.md.
    static func documentedFiles() throws -> [String] {
        try markdownFiles().filter { $0 == "README.md" || $0.hasPrefix("docs/") || $0 == "payloads/README.md" }
    }

    static func load(_ path: String) throws -> MarkdownFile {
        MarkdownFile(path: path, text: try String(contentsOfFile: Fixtures.path(path), encoding: .utf8))
    }

    func testEveryMarkdownFileInTheRepositoryHasBalancedFences() throws {
        let files = try Self.markdownFiles()
        XCTAssertGreaterThan(files.count, 10)
        for path in files {
            if case .failure(let error) = try Self.load(path).fences() { XCTFail(error.description) }
        }
    }

    func testEveryRelativeLinkInTheReadmeAndDocsResolves() throws {
        for path in try Self.documentedFiles() {
            for (line, target) in try Self.load(path).brokenRelativeLinks(root: Fixtures.root) {
                XCTFail("\(path):\(line): the link (\(target)) names no file in the repository; fix the path")
            }
        }
    }

    func testEveryExampleMarkerIsKnownAndNotRunBlocksShowPlaceholders() throws {
        for path in try Self.documentedFiles() {
            for example in try Self.load(path).examples() {
                if let problem = example.markerProblem { XCTFail("\(example.location): \(problem)") }
                switch example.marker {
                case .realServices:
                    let text = example.body.joined(separator: "\n")
                    XCTAssertTrue(text.contains("…") || text.range(of: #"<[^>]+>"#, options: .regularExpression) != nil,
                                  "\(example.location): a real-services block is never run, so it must show its placeholders (<your key>, …) instead of values that look runnable")
                case .makeTargets:
                    for command in example.commands where !command.text.hasPrefix("make ") {
                        XCTFail("\(example.location): a make-targets block holds only `make …` commands; '\(command.text)' must run in the lab")
                    }
                case .synopsis, nil:
                    break
                }
            }
        }
    }

    func testEveryShellExampleOfTheReadmeAndDocsRunsAsWritten() throws {

        // EXAMPLES_ONLY=docs/sending.md runs one file while you edit it.
        let only = ProcessInfo.processInfo.environment["EXAMPLES_ONLY"]
        let documented = try Self.documentedFiles()
        let files = documented.filter { only == nil || $0 == only }
        // A misspelt name must not run zero files and pass.
        guard !files.isEmpty else {
            throw TestEnvironmentError("EXAMPLES_ONLY=\(only ?? "") names no documented file; use one of: "
                                       + documented.joined(separator: ", "))
        }
        let parsed = try files.map { try Self.load($0).examples() }
        let lab = ExampleLab(pushlabBinary: Fixtures.pushlabBinary, repositoryRoot: Fixtures.root)
        let results = ConcurrentResults(count: files.count)
        // A few files at a time: each runs its own emulator in its own network namespace.
        DispatchQueue.concurrentPerform(iterations: 3) { worker in
            for index in stride(from: worker, to: files.count, by: 3) {
                results.set(index, Result { try lab.run(parsed[index], name: files[index]) })
            }
        }
        var blocks = 0, commands = 0
        for (index, result) in results.values.enumerated() {
            switch result {
            case .success(let outcome):
                blocks += outcome.blocksRun
                commands += outcome.commandsRun
                for failure in outcome.failures { XCTFail(failure.description) }
            case .failure(let error):
                XCTFail("\(files[index]): \(error)")
            case nil:
                XCTFail("\(files[index]): not run")
            }
        }
        let all = parsed.joined()
        let real = all.filter { $0.marker == .realServices }.count
        let synopses = all.filter { $0.marker == .synopsis }.count
        let make = all.filter { $0.marker == .makeTargets }.count
        print("examples: \(all.count) shell blocks in \(files.count) files: \(blocks) run (\(commands) commands), \(real) real-services, \(synopses) synopses, \(make) make-targets")
        XCTAssertEqual(blocks, all.count - real - synopses - make, "every unmarked block runs")
        if only == nil { XCTAssertGreaterThan(blocks, 10) }
    }
}

/// Results filled in by concurrent workers, one slot each.
final class ConcurrentResults: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [Result<ExampleLab.Outcome, Error>?]
    init(count: Int) { slots = Array(repeating: nil, count: count) }
    func set(_ index: Int, _ value: Result<ExampleLab.Outcome, Error>) { lock.withLock { slots[index] = value } }
    var values: [Result<ExampleLab.Outcome, Error>?] { lock.withLock { slots } }
}
