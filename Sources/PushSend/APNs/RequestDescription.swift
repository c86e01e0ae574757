import Foundation
import PushAuth
import PushCore
import PushHTTP

/// How `--verbose` shows an exchange: never the bearer value, never a whole device token.
public enum RequestDescription {
    public static func render(_ request: HTTPRequest) -> String {
        var out = "→ \(request.method) \(redactedURL(request.url))"
        for h in request.headers {
            out += "\n  \(h.name): \(Redact.header(name: h.name, value: h.value))"
        }
        out += "\n  (\(request.body.count) bytes body)"
        return out
    }

    public static func render(_ response: HTTPResponse) -> String {
        var out = "← \(response.status) \(response.version.rawValue)"
        for h in response.headers { out += "\n  \(h.name): \(h.value)" }
        if !response.body.isEmpty { out += "\n  " + String(decoding: response.body.prefix(2048), as: UTF8.self) }
        return out
    }

    /// Shortens the device token in `/3/device/<token>`.
    static func redactedURL(_ url: String) -> String {
        guard let range = url.range(of: APNsPath.devicePrefix) else { return url }
        let token = String(url[range.upperBound...])
        return String(url[..<range.upperBound]) + Redact.token(token)
    }
}
