import Foundation
import PushCore
import PushRelay
import PushStore

/// `pushlab relay import-gorush gorush.yml`: gorush's YAML config as a relay.json with one app,
/// and what became of every setting (docs/relay.md "Migrating from gorush").
enum RelayImportGorushCommand: Command {
    static let path = ["relay", "import-gorush"]
    static let summary = "Convert a gorush config (YAML) into a relay.json, saying what each setting became."
    static let positionalUsage = "gorush.yml"
    static let discussion = """
        Reads gorush's config file (core, grpc, api, ios, android, huawei, queue, log, stat) and writes \
        an equivalent relay.json with one app. Each setting is listed with what it became: mapped (its \
        relay.json pointer), built_in (the relay does it without a setting), elsewhere (a flag or a \
        per-request option), none (no counterpart, and why) or secret (never copied: passwords, inline \
        keys and credentials, the webhook header; only file paths are copied). Paths are written as \
        they are in gorush.yml: relay.json resolves them from its own directory, so check the result \
        with 'pushlab relay --config relay.json --check'. A YAML error is reported as FILE:LINE:COLUMN. \
        Without --output the relay.json goes to stdout and the list to stderr.
        """
    static let output = Option.string("--output", name: "FILE", help: "Write relay.json here (refused if it exists, unless --force).")
    static let app = Option.string("--app", name: "NAME", help: "The app's name in relay.json and in its URLs.", default: "default")
    static let bundleID = Option.string("--bundle-id", name: "ID", help: "The iOS app's bundle id (needed when ios.enabled is true).")
    static let force = Option.flag("--force", help: "Overwrite --output if it exists.")
    static let json = Option.flag("--json", help: "Print {relay_json, settings} as JSON instead of text.")
    static let options: [any OptionDeclaration] = [output, app, bundleID, force, json]

    struct Report: Encodable {
        var file: String
        var output: String?
        var app: String
        var relayJSON: RawJSON
        var settings: [GorushConfigImport.Setting]
        enum CodingKeys: String, CodingKey {
            case file, output, app, settings
            case relayJSON = "relay_json"
        }
    }

    /// A JSON value encoded as itself.
    struct RawJSON: Encodable {
        var value: JSONValue
        func encode(to encoder: any Encoder) throws {
            try JSONDecoder().decode(AnyJSON.self, from: Data(value.minifiedBytes())).encode(to: encoder)
        }
    }

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.count == 1, let file = args.positionals.first else {
            throw UsageError("give one gorush config file", fix: "e.g. pushlab relay import-gorush config.yml --output relay.json")
        }
        let name = try args[app]
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }) else {
            throw UsageError("--app '\(name)': letters, digits, '-', '_' and '.' only", fix: "e.g. --app shop")
        }
        let bytes = try readInput(file, what: "gorush config")
        let root: YAMLNode?
        do {
            root = try YAMLDocument.parse(bytes)
        } catch {
            throw UsageError("\(file):\(error.line):\(error.column): not valid YAML: \(error.message)", fix: "fix the YAML at that line and column")
        }
        let bundle = try args[bundleID]
        let result: GorushConfigImport
        do {
            result = try GorushConfigImport.convert(root, app: name, bundleID: bundle)
        } catch {
            throw UsageError("\(file):\(error.line):\(error.column): \(error.key): \(error.message)", fix: error.fix)
        }
        let text = result.relay.prettyPrinted() + "\n"
        let destination = try args[output]
        if let destination {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: destination, isDirectory: &isDirectory), isDirectory.boolValue {
                throw UsageError("--output \(destination): is a directory, expected the relay.json file to write",
                                 fix: "name the file, e.g. --output \(destination.hasSuffix("/") ? destination : destination + "/")relay.json")
            }
            let parent = FilePaths.parent(of: destination)
            if !parent.isEmpty, !FileManager.default.fileExists(atPath: parent) {
                throw UsageError("--output \(destination): the directory \(parent) does not exist", fix: "create it first (mkdir -p \(parent)), or pass another --output")
            }
            if FileManager.default.fileExists(atPath: destination) && !args[force] {
                throw UsageError("\(destination) exists", fix: "pass --force to overwrite it, or another --output")
            }
            do {
                try Data(text.utf8).write(to: URL(fileURLWithPath: destination), options: .atomic)
            } catch {
                throw UsageError("cannot write \(destination): \(error.localizedDescription)", fix: "check the directory and its permissions")
            }
        }
        if args[json] {
            emit(try renderJSON(Report(file: file, output: destination, app: name, relayJSON: RawJSON(value: result.relay), settings: result.settings)))
            return ExitStatus.success
        }
        if destination == nil { writeOutput(text) }
        let toStderr = destination == nil
        func say(_ line: String) { if toStderr { printError(line) } else { emit(line) } }
        let width = min(36, result.settings.map { $0.gorush.count + ($0.value.map { $0.count + 3 } ?? 0) }.max() ?? 0)
        for s in result.settings {
            let left = s.gorush + (s.value.map { " = \($0)" } ?? "")
            let arrow = s.relay.map { "→ \($0)" } ?? "[\(s.outcome.rawValue)]"
            say("\(left.padding(toLength: max(width, left.count), withPad: " ", startingAt: 0))  \(arrow): \(s.note)")
        }
        let mapped = result.settings.filter { $0.outcome == .mapped }.count
        let secrets = result.settings.filter { $0.outcome == .secret && ($0.value ?? "") != "" }.count
        say("\(file): \(result.settings.count) settings, \(mapped) mapped into \(destination ?? "relay.json (stdout)"), app '\(name)'"
            + (secrets > 0 ? "; \(secrets) secret\(secrets == 1 ? "" : "s") not copied" : "")
            + ". Next: pushlab relay --config \(destination ?? "relay.json") --check")
        return ExitStatus.success
    }
}

/// Any JSON, decoded and re-encoded (for `--json`, which writes through JSONEncoder).
private enum AnyJSON: Codable {
    case null, bool(Bool), number(Double), string(String), array([AnyJSON]), object([String: AnyJSON])
    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null } else if let b = try? c.decode(Bool.self) { self = .bool(b) } else if let n = try? c.decode(Double.self) {
            self = .number(n)
        } else if let s = try? c.decode(String.self) { self = .string(s) } else if let a = try? c.decode([AnyJSON].self) {
            self = .array(a)
        } else { self = .object(try c.decode([String: AnyJSON].self)) }
    }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .number(let n): if n == n.rounded(), abs(n) < 1e15 { try c.encode(Int(n)) } else { try c.encode(n) }
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }
}
