import Foundation

/// What went wrong talking to SQLite, with the file and the statement's purpose.
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
    public var path: String
    public var code: Int32
    public var message: String
    public var description: String { "\(path): SQLite error \(code): \(message)" }
}
