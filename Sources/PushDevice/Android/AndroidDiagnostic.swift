import Foundation

/// Something the virtual phone did that a developer should know about, with the fix.
public struct AndroidDiagnostic: Sendable, Codable, Equatable {
    /// Stable short code for scripts and docs/android.md.
    public var code: String
    public var message: String
    public var fix: String?
    public init(_ code: String, _ message: String, fix: String? = nil) {
        self.code = code
        self.message = message
        self.fix = fix
    }
}
