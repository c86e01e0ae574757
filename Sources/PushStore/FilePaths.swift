import Foundation

/// Path arithmetic on command-line paths as written (relative or absolute).
public enum FilePaths {
    /// The directory part of `path`, as `NSString.deletingLastPathComponent` gives it: `""` for a
    /// bare name (`relay-data`), `/` for `/name`, `a` for `a/b/`. Written by hand because
    /// swift-corelibs-foundation's `deletingLastPathComponent` traps on a one-character string
    /// (`--data d`, `--config r` crashed pushlab with SIGILL).
    public static func parent(of path: String) -> String {
        var chars = Array(path)
        while chars.count > 1, chars.last == "/" { chars.removeLast() }
        guard let slash = chars.lastIndex(of: "/") else { return "" }
        var end = slash
        while end > 0, chars[end - 1] == "/" { end -= 1 }
        return end == 0 ? "/" : String(chars[..<end])
    }
}
