#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one place pushlab writes bytes to a file descriptor with POSIX calls: every byte, retrying
/// short writes and EINTR. Used where the code owns the descriptor (bulk results, image
/// attachments, the App Group store's spare file); everything else writes through Foundation or
/// SQLite.
public enum FileDescriptorWrites {
    /// Writes all of `bytes` at the descriptor's position (`offset == nil`, `write`) or at
    /// `offset` (`pwrite`, the position unchanged). Returns 0, or the `errno` of the failure.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int? = nil) -> Int32 {
        var written = 0
        while written < bytes.count {
            let start = bytes.baseAddress! + written, left = bytes.count - written
            let n = offset.map { pwrite(fd, start, left, off_t($0 + written)) } ?? write(fd, start, left)
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            written += n
        }
        return 0
    }

    public static func writeAll(_ fd: Int32, _ bytes: [UInt8], at offset: Int? = nil) -> Int32 {
        bytes.withUnsafeBytes { writeAll(fd, $0, at: offset) }
    }
}
