/// One request decoded from fuzz bytes, in a text form close to HTTP/1.1 so seeds are readable:
///
///     METHOD target
///     name: value
///     …
///     <empty line>
///     body bytes
///
/// Bytes that are not UTF-8 are replaced (as the server's header decoding does).
public struct FuzzRequest {
    public var method: String
    public var target: String
    public var headers: [(String, String)]
    public var body: [UInt8]

    public init(method: String, target: String, headers: [(String, String)], body: [UInt8]) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
    }

    /// Decodes `bytes`. A head (request line and fields) of ASCII bytes is split byte by byte,
    /// which gives what `init(decodingCharacters:)` gives (in ASCII every byte is one Character
    /// and a line holds no CR LF pair) at a fraction of the cost (the Character-level split
    /// and `lowercased()` were 5% of FuzzServerRequests); any other head goes through
    /// `init(decodingCharacters:)`. `FUZZ_CHECK_FRESH=1` compares the two on every request.
    public init(decoding bytes: ArraySlice<UInt8>) {
        self = Self.decodingASCII(bytes) ?? FuzzRequest(decodingCharacters: bytes)
    }

    /// The byte-level decoding of a request whose head is ASCII; nil for any other.
    static func decodingASCII(_ bytes: ArraySlice<UInt8>) -> FuzzRequest? {
        let (headEnd, bodyStart) = Self.headEnd(bytes)
        let head = bytes[bytes.startIndex..<headEnd]
        guard head.allSatisfy({ $0 < 0x80 }) else { return nil }
        let lines = head.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        let requestLine = lines.first ?? []
        let method: String, target: String
        if let space = requestLine.firstIndex(of: UInt8(ascii: " ")) {
            method = String(decoding: requestLine[..<space], as: UTF8.self)
            target = String(decoding: requestLine[(space + 1)...], as: UTF8.self)
        } else {
            method = String(decoding: requestLine, as: UTF8.self)
            target = "/"
        }
        let headers = lines.dropFirst().map { line -> (String, String) in
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return (asciiLowercased(line), "") }
            let value = line[(colon + 1)...].drop { $0 == UInt8(ascii: " ") }
            return (asciiLowercased(line[..<colon]), String(decoding: value, as: UTF8.self))
        }
        return FuzzRequest(method: method, target: target, headers: headers, body: Array(bytes[bodyStart...]))
    }

    /// The reference decoding, on Characters: what `init(decoding:)` must give.
    public init(decodingCharacters bytes: ArraySlice<UInt8>) {
        let newline = UInt8(ascii: "\n")
        let (headEnd, bodyStart) = Self.headEnd(bytes)
        let lines = bytes[bytes.startIndex..<headEnd].split(separator: newline, omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        let requestLine = lines.first ?? ""
        let parts = requestLine.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        method = String(parts[0])
        target = parts.count > 1 ? String(parts[1]) : "/"
        headers = lines.dropFirst().map { line in
            guard let colon = line.firstIndex(of: ":") else { return (line.lowercased(), "") }
            let value = line[line.index(after: colon)...].drop { $0 == " " }
            return (line[..<colon].lowercased(), String(value))
        }
        body = Array(bytes[bodyStart...])
    }

    /// Where the head ends (the first blank line) and the body starts.
    static func headEnd(_ bytes: ArraySlice<UInt8>) -> (head: Int, body: Int) {
        let newline = UInt8(ascii: "\n")
        var i = bytes.startIndex
        while i < bytes.endIndex {
            if bytes[i] == newline, i + 1 < bytes.endIndex, bytes[i + 1] == newline { return (i, i + 2) }
            i += 1
        }
        return (bytes.endIndex, bytes.endIndex)
    }

    static func asciiLowercased(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// Whether two decodings are the same request.
    public func same(as other: FuzzRequest) -> Bool {
        method == other.method && target == other.target && body == other.body && headers.count == other.headers.count
            && zip(headers, other.headers).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
    }
}
