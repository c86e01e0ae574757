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

    public init(decoding bytes: ArraySlice<UInt8>) {
        let newline = UInt8(ascii: "\n")
        var headEnd = bytes.endIndex
        var bodyStart = bytes.endIndex
        var i = bytes.startIndex
        while i < bytes.endIndex {
            if bytes[i] == newline, i + 1 < bytes.endIndex, bytes[i + 1] == newline {
                headEnd = i
                bodyStart = i + 2
                break
            }
            i += 1
        }
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
}
