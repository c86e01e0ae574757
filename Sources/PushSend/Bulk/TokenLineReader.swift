import Foundation

/// Reads device tokens one per line from a file or standard input, a buffer at a time, so a
/// file of a million tokens never sits in memory. Blank lines and `#` comments are skipped;
/// surrounding whitespace (and a CR from Windows files) is trimmed.
///
/// Not thread-safe: the bulk engine's one loop owns it.
public final class TokenLineReader {
    /// Where the tokens come from, for error messages.
    public let source: String
    private let fd: Int32
    private let ownsDescriptor: Bool
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEOF = false
    /// Bytes handed out as lines so far (ETA estimates).
    public private(set) var bytesConsumed: Int64 = 0
    /// Size of the input when it is a regular file; nil for pipes and terminals.
    public let totalBytes: Int64?
    /// Lines read so far, skipped ones included (for error messages: "line 12").
    public private(set) var lineNumber = 0
    private let chunkSize = 64 * 1024

    /// Opens `path`, or standard input for `-`.
    public init(path: String) throws(BulkInputError) {
        source = path == "-" ? "<stdin>" : path
        if path == "-" {
            fd = STDIN_FILENO
            ownsDescriptor = false
        } else {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else { throw .missingTokenFile(path) }
            if isDir.boolValue { throw .tokenFileIsDirectory(path) }
            let opened = open(path, O_RDONLY)
            guard opened >= 0 else { throw .unreadableTokenFile(path, String(cString: strerror(errno))) }
            fd = opened
            ownsDescriptor = true
        }
        var st = stat()
        if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG {
            totalBytes = Int64(st.st_size)
        } else {
            totalBytes = nil
        }
    }

    /// Tokens given in memory (tests, a single `--token`).
    public init(text: String, source: String = "<memory>") {
        self.source = source
        fd = -1
        ownsDescriptor = false
        buffer = Array(text.utf8)
        atEOF = true
        totalBytes = Int64(buffer.count)
    }

    deinit { if ownsDescriptor { close(fd) } }

    /// The next token, or nil at the end of the input.
    public func next() throws(BulkInputError) -> String? {
        while true {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                let line = buffer[start..<newline]
                bytesConsumed += Int64(newline - start + 1)
                start = newline + 1
                lineNumber += 1
                if let token = Self.token(in: line) { return token }
                continue
            }
            if atEOF {
                guard start < buffer.count else { return nil }
                let line = buffer[start...]
                bytesConsumed += Int64(buffer.count - start)
                start = buffer.count
                lineNumber += 1
                return Self.token(in: line)
            }
            try fill()
        }
    }

    /// Fraction of a regular file consumed, for ETA; nil when the size is unknown.
    public var fractionConsumed: Double? {
        guard let totalBytes, totalBytes > 0 else { return nil }
        return min(1, Double(bytesConsumed) / Double(totalBytes))
    }

    private func fill() throws(BulkInputError) {
        // Drop what was consumed so the buffer holds at most one partial line plus one chunk.
        if start > 0 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        let oldCount = buffer.count
        buffer.reserveCapacity(oldCount + chunkSize)
        buffer.append(contentsOf: repeatElement(0, count: chunkSize))
        var n: Int
        repeat {
            n = buffer.withUnsafeMutableBytes { raw in
                read(fd, raw.baseAddress! + oldCount, chunkSize)
            }
        } while n < 0 && errno == EINTR
        if n < 0 {
            buffer.removeLast(chunkSize)
            throw .unreadableTokenFile(source, String(cString: strerror(errno)))
        }
        buffer.removeLast(chunkSize - n)
        if n == 0 { atEOF = true }
    }

    private static func token(in line: ArraySlice<UInt8>) -> String? {
        var lo = line.startIndex, hi = line.endIndex
        while lo < hi, isSpace(line[lo]) { lo += 1 }
        while hi > lo, isSpace(line[hi - 1]) { hi -= 1 }
        guard lo < hi, line[lo] != UInt8(ascii: "#") else { return nil }
        return String(decoding: line[lo..<hi], as: UTF8.self)
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D }
}

/// Why a bulk input or output file cannot be used. Each says which file and how to fix it.
public enum BulkInputError: Error, Sendable, Hashable, CustomStringConvertible {
    case missingTokenFile(String)
    case tokenFileIsDirectory(String)
    case unreadableTokenFile(String, String)
    case unwritableOutput(String, String)
    /// `--out -` and standard output's reader went away (`… | head`): the CLI ends as in any
    /// closed pipe, quietly.
    case closedStandardOutput

    public var description: String {
        switch self {
        case .missingTokenFile(let p): return "\(p): no such token file (--tokens); give a file with one device token per line, or - for stdin"
        case .tokenFileIsDirectory(let p): return "\(p): is a directory (--tokens); give a file with one device token per line"
        case .unreadableTokenFile(let p, let why): return "\(p): cannot read token file: \(why)"
        case .unwritableOutput(let p, let why): return "\(p): cannot write: \(why); check the directory exists and is writable"
        case .closedStandardOutput: return "standard output was closed by its reader"
        }
    }
}
