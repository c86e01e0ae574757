/// A problem in `relay.json`: the file, the JSON pointer, what is wrong and how to fix it.
public struct RelayConfigError: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    /// `/apps/demo/apns/key_id`; empty for the whole file.
    public var pointer: String
    public var message: String
    public var fix: String

    public init(file: String, pointer: String, message: String, fix: String) {
        self.file = file
        self.pointer = pointer
        self.message = message
        self.fix = fix
    }

    public var description: String {
        "\(file)\(pointer.isEmpty ? "" : " \(pointer)"): \(message). Fix: \(fix)"
    }
}
