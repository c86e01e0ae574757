import Foundation
import PushStore

/// Appends bytes to a file (or standard output for `-`) through a buffer, so a million
/// result lines cost a few hundred `write` calls. Not thread-safe: one owner.
public final class BufferedFileWriter {
    public let path: String
    private let fd: Int32
    private let ownsDescriptor: Bool
    private var buffer: [UInt8] = []
    private let capacity: Int

    /// Creates or truncates `path`; `-` writes to standard output.
    public init(path: String, capacity: Int = 64 * 1024) throws(BulkInputError) {
        self.path = path
        self.capacity = capacity
        if path == "-" {
            fd = STDOUT_FILENO
            ownsDescriptor = false
        } else {
            let opened = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard opened >= 0 else { throw .unwritableOutput(path, String(cString: strerror(errno))) }
            fd = opened
            ownsDescriptor = true
        }
        buffer.reserveCapacity(capacity)
    }

    deinit {
        try? flush()
        if ownsDescriptor { close(fd) }
    }

    public func write(_ text: String) throws(BulkInputError) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= capacity { try flush() }
    }

    public func flush() throws(BulkInputError) {
        let failure = FileDescriptorWrites.writeAll(fd, buffer)
        if failure == EPIPE && !ownsDescriptor { throw .closedStandardOutput }
        if failure != 0 { throw .unwritableOutput(path, String(cString: strerror(failure))) }
        buffer.removeAll(keepingCapacity: true)
    }
}
