import Glibc

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

    /// RFC 9110 §5.6.2 tchar: ALPHA, DIGIT and ``!#$%&'*+-.^_`|~``, one bit per byte value (a
    /// shift and a mask per byte: the server runs this over every method, field name and, for a
    /// request arriving in pieces, the start of every partial request line; a comparison per
    /// character of the list was most of the fuzz target's compare tracing in the parser).
    /// RequestHeadParseTests checks all 256 bytes against the RFC's list.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        // Bits 0–63: `!#$%&'*+-.` and DIGIT; bits 64–127: ALPHA and `^_`|~`.
        let low: UInt64 = 0x03FF_6CFA_0000_0000, high: UInt64 = 0x57FF_FFFF_C7FF_FFFE
        return byte < 64 ? (low >> UInt64(byte)) & 1 != 0 : byte < 128 && (high >> UInt64(byte &- 64)) & 1 != 0
    }

    /// `bytes` is the head without its final empty line.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, maxHeaderListBytes: Int) -> Result {
        let lines = Self.lines(bytes)
        let requestLine = Self.requestLineParts(lines[0])
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
        for line in lines.dropFirst() {
            guard let colon = Self.firstIndex(of: UInt8(ascii: ":"), in: line), colon > line.startIndex else {
                return .failure(status: 400, reason: "malformed header line")
            }
            let nameBytes = line[line.startIndex..<colon]
            // A space or tab is no tchar, so only a name that fails the token check can hold one.
            guard nameBytes.allSatisfy(isTokenCharacter) else {
                // RFC 9112 §5.1: no whitespace between name and colon; §5.2: no obs-fold.
                if nameBytes.contains(where: { $0 == 32 || $0 == 9 }) {
                    return .failure(status: 400, reason: "whitespace in header name or folded header line")
                }
                return .failure(status: 400, reason: "invalid character in a header name")
            }
            let name = String(decoding: nameBytes, as: UTF8.self)
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
                let says = Self.connectionSays(valueBytes, value)
                if says.close { head.keepAlive = false }
                if says.keepAlive && minor == 0 { head.keepAlive = true }
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

    /// The head's lines (split at each LF, a CR before it dropped; at least one), found with
    /// `memchr` rather than a comparison per byte.
    static func lines(_ bytes: UnsafeBufferPointer<UInt8>) -> [Slice<UnsafeBufferPointer<UInt8>>] {
        var lines: [Slice<UnsafeBufferPointer<UInt8>>] = []
        var start = 0
        while true {
            let end = firstIndex(of: 10, in: bytes[start...]) ?? bytes.count
            let line = bytes[start..<end]
            lines.append(line.last == 13 ? line.dropLast() : line)
            if end == bytes.count { return lines }
            start = end + 1
        }
    }

    /// The request line split at its spaces when it has exactly two (method, target, version);
    /// no parts otherwise.
    static func requestLineParts(_ line: Slice<UnsafeBufferPointer<UInt8>>) -> [Slice<UnsafeBufferPointer<UInt8>>] {
        guard let first = firstIndex(of: 32, in: line), let second = firstIndex(of: 32, in: line[(first + 1)...]),
              firstIndex(of: 32, in: line[(second + 1)...]) == nil else { return [] }
        return [line[..<first], line[(first + 1)..<second], line[(second + 1)...]]
    }

    /// Index (in the whole buffer) of the first `byte` in `slice` (`memchr`).
    static func firstIndex(of byte: UInt8, in slice: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
        guard !slice.isEmpty, let base = slice.base.baseAddress,
              let found = memchr(base + slice.startIndex, Int32(byte), slice.count) else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    /// Whether a Connection field's options (`connectionOptions`) include `close` and
    /// `keep-alive`. A value that is not ASCII is read on Characters only if it holds `close`
    /// or `eep-alive` in some ASCII case: an option equal to either after `lowercased()` is
    /// made of Characters that are each one ASCII letter or `-` there, and no other scalar
    /// lowercases to one of those, nor to a Character equal to one, except U+212A KELVIN SIGN
    /// to "k" (RequestHeadParseTests checks every scalar); lowercasing maps scalar by scalar, so
    /// those letters stand side by side in the value's own bytes, in some case.
    static func connectionSays(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, _ value: String) -> (close: Bool, keepAlive: Bool) {
        let ascii = bytes.allSatisfy { $0 < 0x80 }
        if !ascii, !containsIgnoringASCIICase(bytes, closeOption, anchor: 3), !containsIgnoringASCIICase(bytes, eepAlive, anchor: 3) {
            return (false, false)
        }
        let options = connectionOptions(bytes, value, isASCII: ascii)
        return (options.contains("close"), options.contains("keep-alive"))
    }

    static let closeOption = Array("close".utf8)
    static let eepAlive = Array("eep-alive".utf8)

    /// Whether `bytes` hold `lowercase` (lowercase ASCII letters and `-`) in any ASCII case, found
    /// from where its byte at `anchor` (`s` of "close", `-` of "eep-alive") occurs in either case.
    static func containsIgnoringASCIICase(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, _ lowercase: [UInt8], anchor: Int) -> Bool {
        let key = lowercase[anchor]
        let variants = key >= UInt8(ascii: "a") && key <= UInt8(ascii: "z") ? [key, key - 32] : [key]
        for variant in variants {
            var from = bytes.startIndex
            while let found = firstIndex(of: variant, in: bytes[from...]) {
                let start = found - anchor
                if start >= bytes.startIndex, start + lowercase.count <= bytes.endIndex,
                   equalsIgnoringASCIICase(bytes[start..<(start + lowercase.count)], lowercase) {
                    return true
                }
                from = found + 1
            }
        }
        return false
    }

    /// A Connection field's options (RFC 9110 §7.6.1), lowercased, without the spaces and tabs
    /// around them. An ASCII value is split on its bytes; any other on Characters, as
    /// `lowercased()` may fold a non-ASCII letter into an ASCII one (U+212A KELVIN SIGN to "k")
    /// and a combining mark makes one Character with the comma or space before it.
    static func connectionOptions(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, _ value: String, isASCII: Bool) -> [String] {
        guard isASCII else {
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
