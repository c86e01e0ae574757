import Foundation
import PushCore
import PushHTTP

/// Where a profile's metrics go and how they authenticate. Shared by the NSE (delivered), the
/// tap handler (opened) and launch recovery, so every route agrees on hosts and credentials.
public struct MetricsEndpoint: Sendable, Equatable {
    /// CDP host, e.g. `https://cdp.customer.io`, or the profile's custom base URL.
    public var cdpBaseURL: String
    /// Legacy track host, e.g. `https://track-sdk.customer.io`, or the custom base URL.
    public var legacyBaseURL: String
    /// `Basic base64("<cdp api key>:")`.
    public var cdpAuthorization: String
    /// `Basic base64("<site id>:<api key>")`, when legacy credentials are configured.
    public var legacyAuthorization: String?

    public init(profile: AppProfile) {
        let custom = profile.metricsBaseURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        switch profile.region {
        case .us:
            cdpBaseURL = custom ?? "https://cdp.customer.io"
            legacyBaseURL = custom ?? "https://track-sdk.customer.io"
        case .eu:
            cdpBaseURL = custom ?? "https://cdp-eu.customer.io"
            legacyBaseURL = custom ?? "https://track-sdk-eu.customer.io"
        }
        cdpAuthorization = MetricsEndpoint.basic(user: profile.cdpAPIKey, password: "")
        if let site = profile.siteID, let key = profile.apiKey {
            legacyAuthorization = MetricsEndpoint.basic(user: site, password: key)
        }
    }

    /// The full URL of `route`.
    public func url(_ route: CIOMetricRoute) -> String {
        (route == .legacyEvents ? legacyBaseURL : cdpBaseURL) + route.rawValue
    }

    /// The Authorization header value `route` carries.
    public func authorization(for route: CIOMetricRoute) -> String {
        route == .legacyEvents ? (legacyAuthorization ?? cdpAuthorization) : cdpAuthorization
    }

    /// `Basic base64("<user>:<password>")`.
    public static func basic(user: String, password: String) -> String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    /// A JSON POST to `route` with the auth header, content type and `userAgent`.
    public func request(_ route: CIOMetricRoute, body: [UInt8], userAgent: String, timeout: Duration?) -> HTTPRequest {
        var headers = HTTPHeaders()
        headers.add("Content-Type", "application/json; charset=utf-8")
        headers.add("Authorization", authorization(for: route))
        headers.add("User-Agent", userAgent)
        return HTTPRequest(method: "POST", url: url(route), headers: headers, body: body, timeout: timeout)
    }
}

extension AppProfile {
    public var metricsEndpoint: MetricsEndpoint { MetricsEndpoint(profile: self) }

    /// The NSE's User-Agent (docs/specs/device-side.md §3). Inside the extension `Bundle.main` is the
    /// extension, so the reference SDK reports the extension's bundle id here.
    public var nseUserAgent: String {
        "Customer.io NSE Client/\(sdkVersion) (\(deviceModel); iOS \(osVersion)) \(extensionBundleID)/\(appVersion)"
    }

    /// The host app's User-Agent, for events the app sends (opened, recovered delivered).
    public var appUserAgent: String {
        "Customer.io iOS Client/\(sdkVersion) (\(deviceModel); iOS \(osVersion)) \(bundleID)/\(appVersion)"
    }
}
