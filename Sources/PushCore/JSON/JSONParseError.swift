import Foundation

/// Why a document is not JSON, where, and how to fix it. Line and column are 1-based; the
/// column counts characters (Unicode scalars) on the line; `offset` is the 0-based byte offset.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: Sendable, Hashable {
        case empty
        case unexpectedEnd(expected: String)
        case unexpectedCharacter(found: String, expected: String)
        /// `//` or `/* */`: the vendor docs' samples have them, JSON does not.
        case comment
        case trailingComma
        case singleQuotes
        case unquotedKey
        case byteOrderMark
        /// A NUL or other control byte outside a string: not a text file.
        case binaryData(byte: UInt8)
        case invalidUTF8
        case controlCharacterInString(byte: UInt8)
        case invalidEscape(String)
        case loneSurrogate
        case invalidNumber(String)
        case nestingTooDeep(limit: Int)
        case trailingContent
        case tooLarge(bytes: Int, limit: Int)
    }

    public let reason: Reason
    public let offset: Int
    public let line: Int
    public let column: Int

    public init(reason: Reason, offset: Int, line: Int, column: Int) {
        self.reason = reason
        self.offset = offset
        self.line = line
        self.column = column
    }

    public var message: String {
        switch reason {
        case .empty: "empty input: a payload must be a JSON object"
        case .unexpectedEnd(let expected): "unexpected end of input, expected \(expected)"
        case .unexpectedCharacter(let found, let expected): "unexpected \(found), expected \(expected)"
        case .comment: "comments are not allowed in JSON"
        case .trailingComma: "trailing comma is not allowed in JSON"
        case .singleQuotes: "strings must use double quotes in JSON"
        case .unquotedKey: "object keys must be double-quoted strings"
        case .byteOrderMark: "the file starts with a UTF-8 byte order mark"
        case .binaryData(let b): String(format: "binary data (byte 0x%02X): this is not a JSON text file", b)
        case .invalidUTF8: "invalid UTF-8 byte sequence"
        case .controlCharacterInString(let b): String(format: "unescaped control character 0x%02X in a string", b)
        case .invalidEscape(let e): "invalid escape sequence \(e) in a string"
        case .loneSurrogate: "unpaired UTF-16 surrogate in a \\u escape"
        case .invalidNumber(let t): "invalid number \(t)"
        case .nestingTooDeep(let limit): "nesting deeper than \(limit) levels"
        case .trailingContent: "unexpected content after the end of the JSON value"
        case .tooLarge(let bytes, let limit): "input is \(bytes) bytes, larger than the \(limit)-byte limit"
        }
    }

    public var fix: String {
        switch reason {
        case .empty: "provide a JSON object such as {\"aps\":{\"alert\":\"hi\"}}"
        case .unexpectedEnd: "the document is cut short: close every string, array and object"
        case .unexpectedCharacter: "check the JSON syntax at this position"
        case .comment: "delete the comment (samples in vendor docs carry comments that must be removed before sending)"
        case .trailingComma: "remove the comma before the closing bracket"
        case .singleQuotes: "replace the single quotes with double quotes"
        case .unquotedKey: "put the key in double quotes"
        case .byteOrderMark: "save the file as UTF-8 without a BOM"
        case .binaryData: "pass a JSON payload file, not a binary file"
        case .invalidUTF8: "save the file as UTF-8"
        case .controlCharacterInString: "escape it (\\n, \\t, or \\u00XX)"
        case .invalidEscape: "use one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX"
        case .loneSurrogate: "encode characters outside the BMP as a \\uD8xx\\uDCxx pair, or write them as UTF-8"
        case .invalidNumber: "write numbers as JSON numbers: no leading zeros, +, NaN, Infinity or hex"
        case .nestingTooDeep: "flatten the structure; push payloads never need this much nesting"
        case .trailingContent: "remove everything after the closing brace, or send one JSON value per file"
        case .tooLarge: "APNs payloads are at most 4096 bytes (5120 for VoIP); check that this is the right file"
        }
    }

    public var description: String { "\(line):\(column): \(message)" }
}
