/// One reply in the Redis protocol (RESP2), as plain Swift values.
public enum RedisReply: Sendable, Hashable {
    /// `+OK`, `+QUEUED`, …
    case status(String)
    /// `-ERR …`, `-NOSCRIPT …`, `-BUSYGROUP …`: the server's message, prefix included.
    case error(String)
    case integer(Int64)
    /// A bulk string (binary-safe).
    case bulk([UInt8])
    /// The nil bulk string or nil array (`GET` of a missing key, a `BLOCK` that timed out).
    case null
    case array([RedisReply])

    /// A bulk or status reply as text; nil for anything else.
    public var string: String? {
        switch self {
        case .bulk(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .status(let text): return text
        default: return nil
        }
    }

    /// An integer reply, or a bulk string holding a decimal integer (XPENDING counts).
    public var integer: Int64? {
        switch self {
        case .integer(let value): return value
        case .bulk: return string.flatMap { Int64($0) }
        default: return nil
        }
    }

    public var array: [RedisReply]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    public var isNull: Bool { self == .null }

    /// The error's code: the first word of the message (`NOSCRIPT`, `BUSYGROUP`, `WRONGTYPE`).
    public var errorCode: String? {
        guard case .error(let message) = self else { return nil }
        return message.split(separator: " ", maxSplits: 1).first.map(String.init)
    }
}

extension RedisReply {
    /// The reply's type and size, without its content (which may hold tokens): for error messages.
    public var shape: String {
        switch self {
        case .status(let text): return "status \(text.prefix(20))"
        case .error(let message): return "error \(message.prefix(60))"
        case .integer: return "integer"
        case .bulk(let bytes): return "bulk string of \(bytes.count) bytes"
        case .null: return "nil"
        case .array(let elements): return "array of \(elements.count)"
        }
    }
}
