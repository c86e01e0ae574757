import Foundation

/// A deliberately small URL reader for validation: the scheme, host and path as written,
/// without Foundation's platform-dependent repairs (percent-encoding spaces on some versions).
/// Works on UTF-8 bytes: it runs for every image and link on the gateway's path.
struct URLShape {
    let scheme: String
    let host: String?
    let path: String

    /// nil when the text is not an absolute URL: no RFC 3986 scheme, or whitespace, control
    /// characters or characters URLs may not contain unencoded (`<>"{}|\^` and backtick).
    init?(_ text: String) {
        let u = Array(text.utf8)
        guard let colon = u.firstIndex(of: UInt8(ascii: ":")), colon > 0 else { return nil }
        func isAlpha(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }
        guard isAlpha(u[0]) else { return nil }
        for b in u[0..<colon] where !(isAlpha(b) || (b >= 0x30 && b <= 0x39) || b == 0x2B || b == 0x2D || b == 0x2E) { return nil }
        for b in u {
            switch b {
            case 0...0x20, 0x7F, 0x3C, 0x3E, 0x22, 0x7B, 0x7D, 0x7C, 0x5C, 0x5E, 0x60: return nil
            default: continue
            }
        }
        scheme = String(decoding: u[0..<colon], as: UTF8.self)
        var i = colon + 1
        if i + 1 < u.count, u[i] == 0x2F, u[i + 1] == 0x2F {
            i += 2
            var end = i
            while end < u.count, u[end] != 0x2F, u[end] != 0x3F, u[end] != 0x23 { end += 1 }
            var hostStart = i, hostEnd = end
            if let at = u[i..<end].lastIndex(of: UInt8(ascii: "@")) { hostStart = at + 1 }
            if hostStart < hostEnd, u[hostStart] != UInt8(ascii: "["), let port = u[hostStart..<hostEnd].lastIndex(of: UInt8(ascii: ":")) {
                hostEnd = port
            }
            host = String(decoding: u[hostStart..<max(hostStart, hostEnd)], as: UTF8.self)
            i = end
        } else {
            host = nil
        }
        var pathEnd = i
        while pathEnd < u.count, u[pathEnd] != 0x3F, u[pathEnd] != 0x23 { pathEnd += 1 }
        path = String(decoding: u[i..<pathEnd], as: UTF8.self)
    }

    var lowercasedScheme: String { scheme.lowercased() }
    var isWeb: Bool { lowercasedScheme == "http" || lowercasedScheme == "https" }

    /// The path's extension, lowercased (`/a/b.JPG` → `jpg`), or "".
    var pathExtension: String {
        let u = Array(path.utf8)
        guard let dot = u.lastIndex(of: UInt8(ascii: ".")) else { return "" }
        if let slash = u.lastIndex(of: UInt8(ascii: "/")), slash > dot { return "" }
        if dot == 0 || u[dot - 1] == UInt8(ascii: "/") { return "" }
        return String(decoding: u[(dot + 1)...], as: UTF8.self).lowercased()
    }
}
