import Foundation

/// ASCII-lowercases `s` only when it has an upper-case letter (HTTP/2 header names never do).
@inline(__always)
func asciiLowercased(_ s: String) -> String {
    let hasUpper = s.utf8.withContiguousStorageIfAvailable { $0.contains { $0 >= 65 && $0 <= 90 } }
        ?? s.utf8.contains { $0 >= 65 && $0 <= 90 }
    return hasUpper ? s.lowercased() : s
}
