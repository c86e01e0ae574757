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
        var responses: [Response] = []
        var offset = 0
        while offset < bytes.count {
            guard let statusEnd = lineEnd(bytes, from: offset) else {
                return .failure(Malformed(offset: offset, reason: "status line not terminated by CRLF"))
            }
            let line = Array(bytes[offset..<statusEnd])
            guard line.count >= 13, line.starts(with: statusPrefix), line[12] == 32,
                  line[9...11].allSatisfy({ $0 >= 48 && $0 <= 57 }),
                  let status = Int(String(decoding: line[9...11], as: UTF8.self)), (100...599).contains(status) else {
                return .failure(Malformed(offset: offset, reason: "bad status line '\(String(decoding: line.prefix(60), as: UTF8.self))'"))
            }
            if let bad = line.firstIndex(where: { isForbiddenInLine($0) }) {
                return .failure(Malformed(offset: offset + bad, reason: "control byte \(line[bad]) in the status line"))
            }
            offset = statusEnd + 2
            var headers: [(name: String, value: String)] = []
            while true {
                guard let end = lineEnd(bytes, from: offset) else {
                    return .failure(Malformed(offset: offset, reason: "header section not terminated by CRLF"))
                }
                if end == offset {
                    offset = end + 2
                    break
                }
                let field = bytes[offset..<end]
                guard let colon = field.firstIndex(of: UInt8(ascii: ":")), colon > field.startIndex,
                      field[field.startIndex..<colon].allSatisfy(isTokenCharacter) else {
                    return .failure(Malformed(offset: offset, reason: "bad field line '\(String(decoding: field.prefix(60), as: UTF8.self))'"))
                }
                if let bad = field.firstIndex(where: { isForbiddenInLine($0) }) {
                    return .failure(Malformed(offset: bad, reason: "control byte \(bytes[bad]) in a field value (response splitting)"))
                }
                let value = field[(colon + 1)...].drop { $0 == 32 || $0 == 9 }
                headers.append((String(decoding: field[..<colon], as: UTF8.self), String(decoding: value, as: UTF8.self)))
                offset = end + 2
            }
            var response = Response(status: status, headers: headers, body: [])
            if status >= 200 {
                let lengths = headers.filter { $0.name.lowercased() == "content-length" }
                guard lengths.count == 1, let length = Int(lengths[0].value), length >= 0 else {
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
                if response.header("connection")?.lowercased() == "close", offset < bytes.count {
                    return .failure(Malformed(offset: offset, reason: "bytes after a response that said connection: close"))
                }
            }
            responses.append(response)
        }
        return .success(responses)
    }

    /// Index of the CR of the next CRLF at or after `start`; a bare LF ends nothing (and is
    /// then caught as a control byte in the line).
    private static func lineEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index + 1 < bytes.count {
            if bytes[index] == 13 && bytes[index + 1] == 10 { return index }
            index += 1
        }
        return nil
    }

    /// CR, LF and NUL may not appear inside a line (RFC 9110 §5.5; RFC 9112 §2.2).
    private static func isForbiddenInLine(_ byte: UInt8) -> Bool { byte == 13 || byte == 10 || byte == 0 }

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
