import Foundation
import PushCore

/// Where APNs pushes go (docs/specs/apns.md "Connection").
public struct APNsEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// Scheme, host and port, no trailing slash, e.g. `https://api.push.apple.com:443`.
    public let baseURL: String
    public let isSandbox: Bool

    public static let productionHost = "api.push.apple.com"
    public static let sandboxHost = "api.sandbox.push.apple.com"

    /// Port 443, or 2197 for firewalls that only allow that.
    public static func production(port: Int = 443) -> APNsEndpoint {
        APNsEndpoint(baseURL: "https://\(productionHost):\(port)", isSandbox: false)
    }
    public static func sandbox(port: Int = 443) -> APNsEndpoint {
        APNsEndpoint(baseURL: "https://\(sandboxHost):\(port)", isSandbox: true)
    }
    /// Any server speaking the APNs protocol (the gateway emulator). A path after the host is
    /// ignored: requests always go to `/3/device/<token>`.
    public static func custom(_ url: String) throws(APNsEndpointError) -> APNsEndpoint {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              scheme == "https" || scheme == "http", let host = components.host, !host.isEmpty else {
            throw APNsEndpointError(url: url)
        }
        let hostPart = host.contains(":") ? "[\(host)]" : host
        let port = components.port.map { ":\($0)" } ?? ""
        return APNsEndpoint(baseURL: "\(scheme)://\(hostPart)\(port)", isSandbox: host == sandboxHost)
    }

    /// Built in one allocation (`a + b + c` makes an intermediate string): a bulk send builds
    /// one per push.
    public func url(forDeviceToken token: String) -> String {
        var url = ""
        url.reserveCapacity(baseURL.utf8.count + APNsPath.devicePrefix.utf8.count + token.utf8.count)
        url += baseURL
        url += APNsPath.devicePrefix
        url += token
        return url
    }
    public var description: String { baseURL }
}

public struct APNsEndpointError: Error, Sendable, Hashable, CustomStringConvertible {
    public var url: String
    public var description: String { "--url '\(url)' is not an http(s) URL with a host; e.g. https://localhost:8443" }
}
