import Foundation

/// The shell examples of one Markdown file, parsed by the convention in docs/README.md
/// ("Examples are tests"): every `sh` block runs in the lab unless a marker says why not.
struct MarkdownFile {
    /// Path relative to the repository root, e.g. `docs/sending.md`.
    var path: String
    var lines: [String]

    init(path: String, text: String) {
        self.path = path
        lines = text.components(separatedBy: "\n")
    }

    /// A fenced code block: where it starts, its info string and its body lines.
    struct Fence {
        var openingLine: Int   // 1-based line of the opening fence
        var info: String
        var body: [String]
        var marker: ExampleMarker?
        var markerProblem: String?
    }

    /// Fences must pair up (a missing closing fence turns the rest of the page into code).
    /// Returns the fences, or the line of the fence that is never closed.
    func fences() -> Result<[Fence], FenceError> {
        var result: [Fence] = []
        var open: (line: Int, indent: Int, ticks: String, info: String)?
        var body: [String] = []
        for (index, raw) in lines.enumerated() {
            let trimmed = raw.drop { $0 == " " }
            let indent = raw.count - trimmed.count
            let fenceChar: Character? = trimmed.hasPrefix("```") ? "`" : trimmed.hasPrefix("~~~") ? "~" : nil
            if let current = open {
                if indent < 4, let fenceChar, current.ticks.first == fenceChar,
                   trimmed.prefix { $0 == fenceChar }.count >= current.ticks.count,
                   trimmed.drop(while: { $0 == fenceChar }).allSatisfy({ $0 == " " }) {
                    let (marker, problem) = ExampleMarker.parse(linesBefore: Array(lines[..<current.line]))
                    result.append(Fence(openingLine: current.line + 1, info: current.info, body: body,
                                        marker: marker, markerProblem: problem))
                    open = nil
                    body = []
                } else {
                    // Strip the fence's own indentation from the body, as Markdown does.
                    body.append(String(raw.dropFirst(min(current.indent, raw.prefix { $0 == " " }.count))))
                }
            } else if indent < 4, let fenceChar {
                let ticks = String(trimmed.prefix { $0 == fenceChar })
                let info = trimmed.dropFirst(ticks.count).trimmingCharacters(in: .whitespaces)
                open = (index, indent, ticks, info)
            }
        }
        if let open { return .failure(FenceError(path: path, line: open.line + 1)) }
        return .success(result)
    }

    struct FenceError: Error, CustomStringConvertible {
        var path: String
        var line: Int
        var description: String {
            "\(path):\(line): this code fence is never closed, so the rest of the file renders as code; add a closing ``` line"
        }
    }

    /// Info strings that mean "a shell session": all of them are examples, whatever the spelling.
    static let shellLanguages: Set<String> = ["sh", "bash", "shell", "console", "zsh", "shell-session"]

    /// The shell examples of this file, in order.
    func examples() throws -> [ShellExample] {
        let all = try fences().get()
        return all.filter { MarkdownFile.shellLanguages.contains($0.info.split(separator: " ").first.map(String.init) ?? "") }
            .map { ShellExample(file: path, line: $0.openingLine, marker: $0.marker, markerProblem: $0.markerProblem, body: $0.body) }
    }

    /// Relative links `[text](target)` whose file does not exist, with their line numbers.
    func brokenRelativeLinks(root: URL) -> [(line: Int, target: String)] {
        var broken: [(Int, String)] = []
        let directory = (path as NSString).deletingLastPathComponent
        var inFence = false
        let pattern = try! NSRegularExpression(pattern: #"\]\(([^)\s]+)(?:\s+"[^"]*")?\)"#)
        for (index, line) in lines.enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") { inFence.toggle(); continue }
            if inFence { continue }
            let ns = line as NSString
            for match in pattern.matches(in: line, range: NSRange(location: 0, length: ns.length)) {
                let target = ns.substring(with: match.range(at: 1))
                if target.contains("://") || target.hasPrefix("mailto:") || target.hasPrefix("#") { continue }
                let file = String(target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0])
                guard !file.isEmpty else { continue }
                let resolved = root.appendingPathComponent(directory).appendingPathComponent(file).standardizedFileURL.path
                if !FileManager.default.fileExists(atPath: resolved) { broken.append((index + 1, target)) }
            }
        }
        return broken
    }
}

/// The HTML comment on the line before a fence that says how the example is treated
/// (invisible on a rendered page): `<!-- example: real-services … -->`, `<!-- example: synopsis -->`.
enum ExampleMarker: String, CaseIterable {
    /// Needs Apple's or Google's servers, a real key or a real device: shown with placeholders
    /// (`<…>` or `…`), never run.
    case realServices = "real-services"
    /// A usage synopsis (`[--flag]`, `a|b`), not a command to run.
    case synopsis = "synopsis"
    /// `make` targets of this repository (`make demo`, `make test`): the build and the test
    /// suite itself, which CI runs; the lab cannot run the suite inside the suite.
    case makeTargets = "make-targets"

    static func parse(linesBefore: [String]) -> (ExampleMarker?, String?) {
        guard let previous = linesBefore.last(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty })?
            .trimmingCharacters(in: .whitespaces),
              previous.hasPrefix("<!--"), previous.hasSuffix("-->") else { return (nil, nil) }
        let inner = previous.dropFirst(4).dropLast(3).trimmingCharacters(in: .whitespaces)
        guard inner.hasPrefix("example:") else { return (nil, nil) }
        let word = inner.dropFirst("example:".count).trimmingCharacters(in: .whitespaces)
            .split(whereSeparator: { $0 == " " || $0 == "," }).first.map(String.init) ?? ""
        guard let marker = ExampleMarker(rawValue: word) else {
            return (nil, "unknown example marker '\(word)'; use one of \(allCases.map(\.rawValue).joined(separator: ", ")) (docs/README.md)")
        }
        return (marker, nil)
    }
}

/// One `sh` block: either a transcript (`$ command` lines, each followed by the output it
/// prints) or a list of commands with no output shown.
struct ShellExample {
    var file: String
    var line: Int
    var marker: ExampleMarker?
    var markerProblem: String?
    var body: [String]

    struct Command {
        var text: String          // as written, continuation lines included (without "$ ")
        var line: Int             // 1-based line in the Markdown file
        var expectedStatus: Int32 // from a trailing "# exit N", else 0
        var expectedOutput: [String]?  // nil: not compared (no output shown under the command)
        /// `pushlab serve` / `pushlab collector` (in the foreground or with `&`): runs until
        /// Ctrl-C; the next command waits until it printed its first lines (it is listening).
        var isServer: Bool
    }

    var location: String { "\(file):\(line)" }
    var isTranscript: Bool { body.contains { $0.hasPrefix("$ ") } }

    var commands: [Command] {
        var result: [Command] = []
        var index = 0
        let transcript = isTranscript
        while index < body.count {
            let raw = body[index]
            let lineNumber = line + 1 + index
            if transcript {
                guard raw.hasPrefix("$ ") else { index += 1; continue }  // output before any prompt: none by convention
                var text = String(raw.dropFirst(2))
                while text.hasSuffix("\\") || ShellExample.hasOpenQuote(text) || !ShellExample.isCompleteCommand(text), index + 1 < body.count {
                    index += 1
                    text += "\n" + body[index]
                }
                index += 1
                var output: [String] = []
                while index < body.count, !body[index].hasPrefix("$ ") {
                    output.append(body[index])
                    index += 1
                }
                while output.last?.trimmingCharacters(in: .whitespaces).isEmpty == true { output.removeLast() }
                result.append(Command(text: text, line: lineNumber, expectedStatus: ShellExample.exitStatus(text),
                                      expectedOutput: output.isEmpty ? nil : output, isServer: ShellExample.isServer(text)))
            } else {
                let trimmed = raw.trimmingCharacters(in: .whitespaces)
                if trimmed.isEmpty || trimmed.hasPrefix("#") { index += 1; continue }
                var text = raw
                while text.hasSuffix("\\") || ShellExample.hasOpenQuote(text) || !ShellExample.isCompleteCommand(text), index + 1 < body.count {
                    index += 1
                    text += "\n" + body[index]
                }
                index += 1
                result.append(Command(text: text, line: lineNumber, expectedStatus: ShellExample.exitStatus(text),
                                      expectedOutput: nil, isServer: ShellExample.isServer(text)))
            }
        }
        return result
    }

    /// `for …; do` / `if …; then` / `{` without its end: bash reads on (`bash -n` says whether
    /// the text parses on its own).
    static func isCompleteCommand(_ text: String) -> Bool {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let openers = ["for ", "while ", "until ", "if ", "case ", "{", "(", "function "]
        guard openers.contains(where: { trimmed.hasPrefix($0) }) || trimmed.hasSuffix("{") || trimmed.hasSuffix("do") || trimmed.hasSuffix("then") else { return true }
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/bin/bash")
        check.arguments = ["-n", "-c", text]
        check.standardError = FileHandle.nullDevice
        check.standardOutput = FileHandle.nullDevice
        guard (try? check.run()) != nil else { return true }
        check.waitUntilExit()
        return check.terminationStatus == 0
    }

    /// A quote opened and not closed yet: the command goes on on the next line.
    static func hasOpenQuote(_ text: String) -> Bool {
        var quote: Character?
        var escaped = false
        for c in text {
            if escaped { escaped = false; continue }
            if c == "\\" && quote != "'" { escaped = true; continue }
            if let q = quote {
                if c == q { quote = nil }
            } else if c == "'" || c == "\"" {
                quote = c
            } else if c == "#" {
                break  // a comment (good enough for the docs: no '#' inside words there)
            }
        }
        return quote != nil
    }

    /// `… # exit 1` at the end of a command: the status it must end with.
    static func exitStatus(_ text: String) -> Int32 {
        let last = text.components(separatedBy: "\n").last ?? ""
        guard let hash = last.range(of: "# exit ", options: .backwards) else { return 0 }
        return Int32(last[hash.upperBound...].trimmingCharacters(in: .whitespaces)) ?? 0
    }

    static func isServer(_ text: String) -> Bool {
        let code = (text.components(separatedBy: "#").first ?? text).trimmingCharacters(in: .whitespaces)
        // One that sends its output elsewhere (`> "$out" &`) is waited for by the block itself.
        return (code.hasPrefix("pushlab serve") || code.hasPrefix("pushlab collector")) && !code.contains(">")
    }

    /// Starts an emulator of its own on at least one default port, so the lab's must step aside.
    var startsEmulator: Bool {
        commands.contains { command in
            let text = command.text.trimmingCharacters(in: .whitespaces)
            return text.hasPrefix("pushlab serve") && !["--port", "--apns-port", "--h2c-port"].allSatisfy { text.contains($0 + " ") }
        }
    }
}
