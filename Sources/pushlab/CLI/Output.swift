import Foundation
import PushStore

/// The tool's one way to standard output and standard error. Each write goes straight to the
/// descriptor (no stdio buffer), so a process reading through a pipe (tests, scripts) sees each
/// line as it is printed, and stdout and stderr interleave in the order they were written.
///
/// A reader that goes away (`pushlab validate --rules | head -1`) ends pushlab the way it ends
/// `cat` or `git log`: killed by SIGPIPE (status 141 in the shell), quietly. pushlab ignores
/// SIGPIPE for its sockets (a peer closing must not kill a server), so the write fails with
/// EPIPE instead; `StandardStreams` then restores the default action and raises the signal.
enum StandardStreams {
    static func write(_ bytes: some Collection<UInt8>, to fd: Int32) {
        let failure = FileDescriptorWrites.writeAll(fd, Array(bytes))
        if failure == EPIPE { endInClosedPipe() }
        // Any other failure (a full disk behind `> file`) cannot be reported on the same stream.
    }

    /// Scratch directories a running command made (the demo's, a reproduce lab's): the `defer`
    /// that removes them does not run when a closed pipe ends the process, so they go here.
    static func removeOnClosedPipe(_ directory: URL) { scratch.add(directory) }

    /// Dies of SIGPIPE, as a program that never ignored it would have on this write, after
    /// removing the registered scratch directories.
    static func endInClosedPipe() -> Never {
        for directory in scratch.all() { try? FileManager.default.removeItem(at: directory) }
        signal(SIGPIPE, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGPIPE)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        raise(SIGPIPE)
        _exit(128 + SIGPIPE)  // not reached: SIGPIPE's default action ends the process
    }

    private static let scratch = ScratchDirectories()
    private final class ScratchDirectories: @unchecked Sendable {  // `lock` guards `directories`
        private let lock = NSLock()
        private var directories: [URL] = []
        func add(_ directory: URL) { lock.withLock { directories.append(directory) } }
        func all() -> [URL] { lock.withLock { directories } }
    }
}

/// Writes `text` to standard output as is.
func writeOutput(_ text: String) { StandardStreams.write(text.utf8, to: STDOUT_FILENO) }

/// Writes bytes (a payload, a saved file) to standard output as they are.
func writeOutput(_ bytes: [UInt8]) { StandardStreams.write(bytes, to: STDOUT_FILENO) }

/// Writes `text` to standard error as is (progress lines end in `\r`, not a newline).
func writeError(_ text: String) { StandardStreams.write(text.utf8, to: STDERR_FILENO) }

/// Writes a line to standard error.
func printError(_ text: String) { writeError(text + "\n") }

/// Writes a line to standard output.
func emit(_ line: String) { writeOutput(line + "\n") }

/// `print` inside pushlab is this one, not the standard library's stdio `print`: its output
/// takes the same path as every other write (unbuffered, SIGPIPE in a closed pipe), so no
/// command can reach stdout another way.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    writeOutput(items.map { "\($0)" }.joined(separator: separator) + terminator)
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
