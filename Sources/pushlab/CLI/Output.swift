import Foundation

/// Writes to standard error without buffering surprises.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// True when standard output is a terminal (progress bars, colour).
var stdoutIsTTY: Bool { isatty(STDOUT_FILENO) == 1 }
var stderrIsTTY: Bool { isatty(STDERR_FILENO) == 1 }

/// Pretty, key-sorted JSON for `--json` output; dates are ISO 8601 text (as the files pushlab
/// writes hold them), never `JSONEncoder`'s default of seconds since 2001.
func renderJSON<T: Encodable>(_ value: T) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}

/// Reads a file named on the command line, or stdin for `-`, with an error that names it.
func readInput(_ path: String, what: String = "file") throws -> [UInt8] {
    if path == "-" { return Array(FileHandle.standardInput.readDataToEndOfFile()) }
    var isDir: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
        throw UsageError("\(path): no such \(what)", fix: "check the path")
    }
    if isDir.boolValue { throw UsageError("\(path): is a directory, expected a \(what)", fix: "pass the file's path, not its directory") }
    guard let data = FileManager.default.contents(atPath: path) else {
        throw UsageError("\(path): cannot read \(what) (permission denied?)", fix: "check its permissions (ls -l \(path))")
    }
    return Array(data)
}

/// Writes a line to standard output at once (no stdio buffering), so a process reading our
/// output through a pipe (tests, scripts) sees each line as it is printed.
func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
