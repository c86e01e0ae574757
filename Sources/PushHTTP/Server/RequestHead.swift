/// An HTTP/1.1 request line and header section, parsed (RFC 9112 §3, §5, §6).
struct RequestHead {
    enum Result {
        case success(RequestHead)
        case failure(status: Int, reason: String)
    }

    var method: String
    var target: String
    var minorVersion: Int
    var headers: HTTPHeaders
    var contentLength = 0
    var chunked = false
    var expectsContinue = false
    var keepAlive = true

    /// RFC 9110 §5.6.2 tchar.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// `bytes` is the head without its final empty line.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, maxHeaderListBytes: Int) -> Result {
        var lines = bytes.split(separator: 10, omittingEmptySubsequences: false).map { line -> Slice<UnsafeBufferPointer<UInt8>> in
            line.last == 13 ? line.dropLast() : line
        }
        guard !lines.isEmpty else { return .failure(status: 400, reason: "empty request") }
        let requestLine = lines.removeFirst().split(separator: 32, omittingEmptySubsequences: false)
        guard requestLine.count == 3, !requestLine[0].isEmpty, !requestLine[1].isEmpty else {
            return .failure(status: 400, reason: "malformed request line (expected: METHOD target HTTP/1.1)")
        }
        // RFC 9110 §9.1: the method is a token; RFC 9112 §3.2: the target is visible ASCII.
        guard requestLine[0].allSatisfy(isTokenCharacter), requestLine[1].allSatisfy({ $0 > 32 && $0 < 127 }) else {
            return .failure(status: 400, reason: "invalid character in the request method or target")
        }
        let version = String(decoding: requestLine[2], as: UTF8.self)
        let minor: Int
        switch version {
        case "HTTP/1.1": minor = 1
        case "HTTP/1.0": minor = 0
        default: return .failure(status: version.hasPrefix("HTTP/") ? 505 : 400, reason: "unsupported version '\(version)'")
        }
        var head = RequestHead(method: String(decoding: requestLine[0], as: UTF8.self),
                               target: String(decoding: requestLine[1], as: UTF8.self),
                               minorVersion: minor, headers: HTTPHeaders())
        head.keepAlive = minor >= 1
        var listBytes = 0
        var contentLengths: Set<String> = []
        var transferEncoding: String?
        for line in lines {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else {
                return .failure(status: 400, reason: "malformed header line")
            }
            let nameBytes = line[line.startIndex..<colon]
            // RFC 9112 §5.1: no whitespace between name and colon; §5.2: no obs-fold.
            if nameBytes.contains(where: { $0 == 32 || $0 == 9 }) {
                return .failure(status: 400, reason: "whitespace in header name or folded header line")
            }
            let name = String(decoding: nameBytes, as: UTF8.self)
            guard nameBytes.allSatisfy(isTokenCharacter) else {
                return .failure(status: 400, reason: "invalid character in a header name")
            }
            // RFC 9110 §5.5: CR, LF and NUL in a value are dangerous (a CR echoed into a response
            // splits it), so refuse them, with the other control characters the grammar excludes.
            let valueBytes = line[(colon + 1)...].trimmingWhitespace()
            guard !valueBytes.contains(where: { ($0 < 32 && $0 != 9) || $0 == 127 }) else {
                return .failure(status: 400, reason: "control character in header '\(name)'")
            }
            let value = String(decoding: valueBytes, as: UTF8.self)
            listBytes += name.utf8.count + value.utf8.count + 32
            if listBytes > maxHeaderListBytes {
                return .failure(status: 431, reason: "request header fields exceed \(maxHeaderListBytes) bytes")
            }
            // The name is token characters (ASCII): ASCII case folding is `lowercased()`.
            if Self.equalsIgnoringASCIICase(nameBytes, Self.contentLength) {
                contentLengths.insert(value)
            } else if Self.equalsIgnoringASCIICase(nameBytes, Self.transferEncoding) {
                transferEncoding = (transferEncoding.map { $0 + "," } ?? "") + value.lowercased()
            } else if Self.equalsIgnoringASCIICase(nameBytes, Self.expect) {
                head.expectsContinue = value.lowercased() == "100-continue"
            } else if Self.equalsIgnoringASCIICase(nameBytes, Self.connection) {
                let options = Self.connectionOptions(valueBytes, value)
                if options.contains("close") { head.keepAlive = false }
                if options.contains("keep-alive") && minor == 0 { head.keepAlive = true }
            }
            head.headers.add(name, value)
        }
        return settleBodyFraming(head, transferEncoding: transferEncoding, contentLengths: contentLengths)
    }

    /// The body's framing from the Transfer-Encoding codings and Content-Length values `head`'s
    /// fields gave: chunked, a length, or none; a failure for anything else.
    private static func settleBodyFraming(_ head: RequestHead, transferEncoding: String?, contentLengths: Set<String>) -> Result {
        var head = head
        if let coding = transferEncoding {
            // RFC 9112 §6.3: chunked must be the final coding; with Content-Length too, the
            // message is suspect (smuggling), so refuse it.
            guard coding.split(separator: ",").last.map({ $0.trimmingCharacters(in: " \t") }) == "chunked",
                  contentLengths.isEmpty else {
                return .failure(status: 400, reason: "unsupported transfer-encoding '\(coding)'")
            }
            head.chunked = true
        } else if let only = contentLengths.first {
            guard contentLengths.count == 1, !only.isEmpty, only.utf8.count <= 18,
                  only.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let length = Int(only) else {
                return .failure(status: 400, reason: "invalid content-length")
            }
            head.contentLength = length
        }
        return .success(head)
    }
}

extension RequestHead {
    static let contentLength = Array("content-length".utf8)
    static let transferEncoding = Array("transfer-encoding".utf8)
    static let expect = Array("expect".utf8)
    static let connection = Array("connection".utf8)

    /// Whether `bytes` are `lowercase` (ASCII) in any case.
    static func equalsIgnoringASCIICase<Bytes: Collection<UInt8>>(_ bytes: Bytes, _ lowercase: [UInt8]) -> Bool {
        guard bytes.count == lowercase.count else { return false }
        return zip(bytes, lowercase).allSatisfy { ($0 >= 65 && $0 <= 90 ? $0 | 0x20 : $0) == $1 }
    }

    /// A Connection field's options (RFC 9110 §7.6.1), lowercased, without the spaces and tabs
    /// around them. An ASCII value is split on its bytes; any other on Characters, as
    /// `lowercased()` may fold a non-ASCII letter into an ASCII one (U+212A KELVIN SIGN to "k")
    /// and a combining mark makes one Character with the comma or space before it.
    static func connectionOptions(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, _ value: String) -> [String] {
        guard bytes.allSatisfy({ $0 < 0x80 }) else {
            return value.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: " \t") }
        }
        return bytes.split(separator: UInt8(ascii: ",")).map { option in
            var option = option
            while let first = option.first, first == 32 || first == 9 { option = option.dropFirst() }
            while let last = option.last, last == 32 || last == 9 { option = option.dropLast() }
            return String(decoding: option.map { $0 >= 65 && $0 <= 90 ? $0 | 0x20 : $0 }, as: UTF8.self)
        }
    }
}

private extension Slice where Base == UnsafeBufferPointer<UInt8> {
    func trimmingWhitespace() -> Slice<Base> {
        var slice = self
        while let first = slice.first, first == 32 || first == 9 { slice = slice.dropFirst() }
        while let last = slice.last, last == 32 || last == 9 { slice = slice.dropLast() }
        return slice
    }
}

private extension Substring {
    func trimmingCharacters(in set: String) -> String {
        var slice = self[...]
        while let first = slice.first, set.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, set.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
