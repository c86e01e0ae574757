import PushCore

/// Reads the bytes a server wrote on one HTTP/1.1 connection as a sequence of responses and
/// says where they stop being well-formed (RFC 9112 §4 status line, §5 field lines, §6.3
/// message length). The oracle of the HTTP/1.1 fuzz target and of its regression tests.
public enum HTTP1ResponseStream {
    public struct Response: Sendable {
        public var status: Int
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]

        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name }?.value
        }
    }

    public struct Malformed: Error, CustomStringConvertible {
        public var offset: Int
        public var reason: String
        public var description: String { "byte \(offset): \(reason)" }
    }

    private static let statusPrefix = Array("HTTP/1.1 ".utf8)

    /// Every response, or where and why the stream is not valid HTTP/1.1.
    ///
    /// A response to HEAD carries the content-length of the body it omits (RFC 9110 §9.3.2);
    /// such a response is recognised by the next status line (or the end of the stream)
    /// starting right after its head.
    public static func parse(_ bytes: [UInt8]) -> Result<[Response], Malformed> {
        bytes.withUnsafeBufferPointer { parse(bytes, $0) }
    }

    /// `parse(_:)` with `buffer` over `bytes`' storage. Line ends and forbidden bytes are found
    /// with `memchr` and token characters by table: the fuzz target runs this on every input, and
    /// the coverage instrumentation traces each byte comparison of a Swift loop (the loops were
    /// a tenth of FuzzHTTP1's time); HTTP1InMemoryExchangeTests checks each verdict.
    private static func parse(_ bytes: [UInt8], _ buffer: UnsafeBufferPointer<UInt8>) -> Result<[Response], Malformed> {
        var responses: [Response] = []
        var offset = 0
        while offset < bytes.count {
            guard let statusEnd = lineEnd(buffer, from: offset) else {
                return .failure(Malformed(offset: offset, reason: "status line not terminated by CRLF"))
            }
            let line = Array(bytes[offset..<statusEnd])
            guard line.count >= 13, line.starts(with: statusPrefix), line[12] == 32,
                  line[9...11].allSatisfy({ $0 >= 48 && $0 <= 57 }),
                  let status = Int(String(decoding: line[9...11], as: UTF8.self)), (100...599).contains(status) else {
                return .failure(Malformed(offset: offset, reason: "bad status line '\(String(decoding: line.prefix(60), as: UTF8.self))'"))
            }
            if let bad = firstForbidden(buffer, offset..<statusEnd) {
                return .failure(Malformed(offset: bad, reason: "control byte \(bytes[bad]) in the status line"))
            }
            offset = statusEnd + 2
            var headers: [(name: String, value: String)] = []
            var contentLengths: [String] = []
            var connection: String?
            while true {
                guard let end = lineEnd(buffer, from: offset) else {
                    return .failure(Malformed(offset: offset, reason: "header section not terminated by CRLF"))
                }
                if end == offset {
                    offset = end + 2
                    break
                }
                let field = bytes[offset..<end]
                guard let colon = buffer.firstIndex(of: 58, in: offset..<end), colon > offset, allTokenCharacters(buffer, offset..<colon) else {
                    return .failure(Malformed(offset: offset, reason: "bad field line '\(String(decoding: field.prefix(60), as: UTF8.self))'"))
                }
                if let bad = firstForbidden(buffer, offset..<end) {
                    return .failure(Malformed(offset: bad, reason: "control byte \(bytes[bad]) in a field value (response splitting)"))
                }
                let value = field[(colon + 1)...].drop { $0 == 32 || $0 == 9 }
                let header = (name: String(decoding: field[..<colon], as: UTF8.self), value: String(decoding: value, as: UTF8.self))
                // The name is token characters (ASCII), so ASCII case folding is `lowercased()`.
                if equalsIgnoringASCIICase(buffer, offset..<colon, contentLengthName) {
                    contentLengths.append(header.value)
                } else if connection == nil, equalsIgnoringASCIICase(buffer, offset..<colon, connectionName) {
                    connection = header.value
                }
                headers.append(header)
                offset = end + 2
            }
            var response = Response(status: status, headers: headers, body: [])
            if status >= 200 {
                guard contentLengths.count == 1, let length = Int(contentLengths[0]), length >= 0 else {
                    return .failure(Malformed(offset: offset, reason: "a final response needs exactly one valid content-length"))
                }
                let headResponse = length > 0 && (offset == bytes.count || bytes[offset...].starts(with: statusPrefix))
                if !headResponse {
                    guard bytes.count - offset >= length else {
                        return .failure(Malformed(offset: offset, reason: "body shorter than its content-length \(length)"))
                    }
                    response.body = Array(bytes[offset..<(offset + length)])
                    offset += length
                }
                if connection?.lowercased() == "close", offset < bytes.count {
                    return .failure(Malformed(offset: offset, reason: "bytes after a response that said connection: close"))
                }
            }
            responses.append(response)
        }
        return .success(responses)
    }

    private static let contentLengthName = Array("content-length".utf8)
    private static let connectionName = Array("connection".utf8)

    /// Index of the CR of the next CRLF at or after `start`; a bare LF ends nothing (and is
    /// then caught as a control byte in the line).
    private static func lineEnd(_ buffer: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var index = start
        // A CR that ends a line has a byte after it: search up to the last byte but one.
        while index + 1 < buffer.count {
            guard let cr = buffer.firstIndex(of: 13, in: index..<(buffer.count - 1)) else { return nil }
            if buffer[cr + 1] == 10 { return cr }
            index = cr + 1
        }
        return nil
    }

    /// Index of the first CR, LF or NUL in `range`: none may appear inside a line (RFC 9110
    /// §5.5; RFC 9112 §2.2).
    private static func firstForbidden(_ buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
        var first: Int?
        for byte: UInt8 in [13, 10, 0] {
            if let index = buffer.firstIndex(of: byte, in: range), index < first ?? Int.max { first = index }
        }
        return first
    }

    /// Whether `range` holds only RFC 9110 §5.6.2 tchar.
    private static func allTokenCharacters(_ buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        tokenTable.withUnsafeBufferPointer { table in
            for index in range where !table[Int(buffer[index])] { return false }
            return true
        }
    }

    /// Whether `range` is `lowercaseName` (ASCII) in any case.
    private static func equalsIgnoringASCIICase(_ buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ lowercaseName: [UInt8]) -> Bool {
        guard range.count == lowercaseName.count else { return false }
        var index = 0
        for i in range {
            let byte = buffer[i]
            if (byte >= 65 && byte <= 90 ? byte | 0x20 : byte) != lowercaseName[index] { return false }
            index += 1
        }
        return true
    }

    /// RFC 9110 §5.6.2 tchar, by byte value.
    private static let tokenTable: [Bool] = (0...255).map { isTokenCharacter(UInt8($0)) }

    /// RFC 9110 §5.6.2 tchar.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
