import Foundation

/// Exit statuses shared by every command (architecture.md: conventions).
enum ExitStatus {
    static let success: Int32 = 0
    /// The push was rejected or the payload failed validation.
    static let failure: Int32 = 1
    /// Bad usage or unreadable input.
    static let usage: Int32 = 2
}
