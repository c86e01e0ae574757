import Foundation

/// A usage or input error: names the flag, file or pointer and says how to fix it. Exit 2.
struct UsageError: Error, CustomStringConvertible {
    var message: String
    var fix: String?
    init(_ message: String, fix: String? = nil) {
        self.message = message
        self.fix = fix
    }
    var description: String { fix.map { "\(message)\n  fix: \($0)" } ?? message }
}
