import Foundation
import PushHTTP

/// Who may use the console. Loopback only by default; with `--console-remote` every request —
/// the page, its API and the live stream — must carry the console's access token, from any
/// peer: `Authorization: Bearer TOKEN`, the `pushlab_console` cookie, or `?token=TOKEN` (the
/// page's link; it answers with the cookie and a redirect to the bare URL, so the token leaves
/// the address bar and the browser's history).
public struct ConsoleAccess: Sendable {
    /// Tokens look like `plc_` + 32 base-62 characters (190 bits of randomness).
    public static let prefix = "plc_"
    public static let cookie = "pushlab_console"
    public let token: String

    /// A token of at least 16 characters of RFC 6750's b64token, from `--console-token-file` or
    /// the environment.
    public init(token: String) throws(ConsoleAccessError) {
        let trimmed = token.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.count >= 16 else { throw ConsoleAccessError(reason: "the console token has \(trimmed.count) characters; use at least 16") }
        // It must travel as `Authorization: Bearer <token>`: RFC 6750's b64token.
        guard BearerAuthorization.token(in: "Bearer " + trimmed) == Substring(trimmed) else {
            throw ConsoleAccessError(reason: "the console token may hold letters, digits and - . _ ~ + / only, with = only at its end (it is sent as 'Authorization: Bearer <token>', RFC 6750)")
        }
        self.token = trimmed
    }

    /// A new random token.
    public static func generate() -> ConsoleAccess {
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        var generator = SystemRandomNumberGenerator()
        let token = prefix + String((0..<32).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
        // 36 characters of the alphabet above always pass the checks.
        return try! ConsoleAccess(token: token)
    }

    /// What logs and terminals may show: the first 8 characters.
    public var shortened: String { String(token.prefix(8)) + "…" }

    enum Presented {
        case none
        case valid(fromQuery: Bool)
        case invalid(field: String)
    }

    /// The token the request presents, and where; checked in constant time.
    func check(_ request: ServerRequest) -> Presented {
        if let header = request.headers["authorization"] {
            guard let presented = BearerAuthorization.token(in: header) else { return .invalid(field: "header authorization") }
            return matches(String(presented)) ? .valid(fromQuery: false) : .invalid(field: "header authorization")
        }
        if let value = QueryItems(request.query)["token"] {
            return matches(value) ? .valid(fromQuery: true) : .invalid(field: "query token")
        }
        if let cookies = request.headers["cookie"] {
            for pair in cookies.split(separator: ";") {
                let kv = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if kv.count == 2, kv[0] == Self.cookie {
                    return matches(kv[1]) ? .valid(fromQuery: false) : .invalid(field: "cookie \(Self.cookie)")
                }
            }
        }
        return .none
    }

    /// Compares every byte whatever the first difference, so the answer's timing does not tell
    /// how much of a guess was right.
    func matches(_ presented: String) -> Bool {
        let a = Array(presented.utf8), b = Array(token.utf8)
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for i in 0..<b.count { difference |= b[i] ^ (i < a.count ? a[i] : 0) }
        return difference == 0
    }

    /// The cookie that lets the browser's later requests (fetch, EventSource) through.
    var setCookie: String { "\(Self.cookie)=\(token); Path=/console; HttpOnly; SameSite=Strict" }
}

/// A console token that cannot be used, with why.
public struct ConsoleAccessError: Error, Sendable, CustomStringConvertible {
    public var reason: String
    public var description: String { reason }
}
