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
