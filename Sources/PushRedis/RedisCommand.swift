/// One command: its name and arguments as binary-safe strings.
public struct RedisCommand: Sendable, Hashable, CustomStringConvertible {
    public var arguments: [[UInt8]]

    public init(_ name: String, _ arguments: [String] = []) {
        self.arguments = [Array(name.utf8)] + arguments.map { Array($0.utf8) }
    }

    public init(_ name: String, _ arguments: String...) { self.init(name, arguments) }

    public init(raw arguments: [[UInt8]]) {
        precondition(!arguments.isEmpty, "a Redis command needs a name")
        self.arguments = arguments
    }

    public var name: String { String(decoding: arguments[0], as: UTF8.self).uppercased() }

    /// The command name only: arguments may hold tokens or credentials, so they are never shown.
    public var description: String { name }
}
