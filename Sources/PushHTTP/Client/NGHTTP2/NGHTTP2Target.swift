/// Where one request goes, cut out of its URL without Foundation: the origin key a connection
/// is shared by, and the pseudo-header values (RFC 9113 §8.3.1).
struct NGHTTP2Target {
    /// True for `https`.
    var tls: Bool
    /// Lower-cased `scheme://host:port`, the key connections are shared by.
    var originKey: String
    /// The host to connect to (no brackets around an IPv6 literal).
    var host: String
    var port: Int
    /// `:authority`: the URL's host[:port] as written.
    var authority: String
    /// `:path`: path and query, "/" when the URL has none; the fragment is dropped.
    var path: String
    /// UTF-8 length of `scheme://authority` in the URL.
    var prefixLength: Int

    /// Nil when `url` is not an absolute http/https URL with a host.
    init?(url: String) {
        var url = url
        guard let parsed = url.withUTF8({ Self.parse($0) }) else { return nil }
        self = parsed
    }

    private init(tls: Bool, originKey: String, host: String, port: Int, authority: String, path: String, prefixLength: Int) {
        self.prefixLength = prefixLength
        self.tls = tls
        self.originKey = originKey
        self.host = host
        self.port = port
        self.authority = authority
        self.path = path
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> NGHTTP2Target? {
        func hasPrefix(_ prefix: StaticString) -> Bool {
            guard bytes.count >= prefix.utf8CodeUnitCount else { return false }
            for index in 0..<prefix.utf8CodeUnitCount where bytes[index] | 0x20 != prefix.utf8Start[index] | 0x20 {
                return false
            }
            return true
        }
        let tls: Bool
        let start: Int
        if hasPrefix("https://") {
            tls = true
            start = 8
        } else if hasPrefix("http://") {
            tls = false
            start = 7
        } else {
            return nil
        }
        var end = start
        while end < bytes.count, bytes[end] != UInt8(ascii: "/"), bytes[end] != UInt8(ascii: "?"), bytes[end] != UInt8(ascii: "#") {
            end += 1
        }
        guard end > start else { return nil }
        let authorityBytes = UnsafeBufferPointer(rebasing: bytes[start..<end])
        guard !authorityBytes.contains(UInt8(ascii: "@")), !authorityBytes.contains(UInt8(ascii: " ")) else { return nil }
        // host, [v6]:port or host:port
        var hostStart = 0, hostEnd = authorityBytes.count, portStart: Int?
        if authorityBytes[0] == UInt8(ascii: "[") {
            guard let close = authorityBytes.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            hostStart = 1
            hostEnd = close
            if close + 1 < authorityBytes.count {
                guard authorityBytes[close + 1] == UInt8(ascii: ":") else { return nil }
                portStart = close + 2
            }
        } else if let colon = authorityBytes.firstIndex(of: UInt8(ascii: ":")) {
            hostEnd = colon
            portStart = colon + 1
        }
        guard hostEnd > hostStart else { return nil }
        var port = tls ? 443 : 80
        if let portStart, portStart < authorityBytes.count {
            var value = 0
            for byte in authorityBytes[portStart...] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), value < 65536 else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            guard value > 0, value < 65536 else { return nil }
            port = value
        }
        let host = String(decoding: UnsafeBufferPointer(rebasing: authorityBytes[hostStart..<hostEnd]), as: UTF8.self).lowercased()
        let authority = String(decoding: authorityBytes, as: UTF8.self)
        var pathEnd = end
        while pathEnd < bytes.count, bytes[pathEnd] != UInt8(ascii: "#") { pathEnd += 1 }
        var path = String(decoding: UnsafeBufferPointer(rebasing: bytes[end..<pathEnd]), as: UTF8.self)
        if path.isEmpty || path.utf8.first == UInt8(ascii: "?") { path = "/" + path }
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return NGHTTP2Target(tls: tls, originKey: (tls ? "https://" : "http://") + bracketed + ":\(port)",
                             host: host, port: port, authority: authority, path: path, prefixLength: end)
    }
}
