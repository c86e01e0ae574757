import CPushLab
import Foundation

/// Atomic swap of two directory entries (Linux `renameat2` with `RENAME_EXCHANGE`), for stores
/// that replace a small file on every change. It lives here, in the storage module that may
/// call C, so the stores above it stay plain Swift.
public enum RenameExchange {
    /// Swaps the files at `a` and `b` in one step: every observer sees either the old or the
    /// new pair. Returns 0, or the errno (`ENOENT` when either entry is missing, `EINVAL` or
    /// `ENOSYS` when the file system or kernel cannot exchange).
    public static func swap(_ a: String, _ b: String) -> Int32 {
        cpl_rename_exchange(a, b) == 0 ? 0 : errno
    }
}

/// Replaces a small file's content atomically without creating or freeing an inode per write:
/// the bytes go into a spare file next to it, overwritten in place, which is then exchanged
/// with the target (`RenameExchange`); where there is no target yet or the file system cannot
/// exchange, the spare is renamed over the target. The target always names a complete file; a
/// writer killed mid-write leaves only a torn spare, which the next write overwrites. Callers
/// serialise their writers (and readers: after an exchange the spare is the old target's inode).
public enum SpareFileReplacement {
    /// A failed step: the file it touched and the errno.
    public struct Failure: Error, Sendable, Equatable {
        public var path: String
        public var errno: Int32
    }

    /// Makes `path` hold `bytes`, through `spare`.
    public static func replace(_ path: String, spare: String, with bytes: [UInt8]) throws(Failure) {
        try overwrite(spare, with: bytes)
        switch RenameExchange.swap(spare, path) {
        case 0:
            return
        case ENOENT, EINVAL, ENOSYS, ENOTSUP, EXDEV:
            if rename(spare, path) != 0 { throw Failure(path: path, errno: Foundation.errno) }
        case let e:
            throw Failure(path: path, errno: e)
        }
    }

    /// Overwrites `path` in place: whole content from offset 0, then cut to length.
    private static func overwrite(_ path: String, with bytes: [UInt8]) throws(Failure) {
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(path: path, errno: Foundation.errno) }
        defer { close(fd) }
        let failure = FileDescriptorWrites.writeAll(fd, bytes, at: 0)
        if failure != 0 { throw Failure(path: path, errno: failure) }
        if ftruncate(fd, off_t(bytes.count)) != 0 { throw Failure(path: path, errno: Foundation.errno) }
    }
}
