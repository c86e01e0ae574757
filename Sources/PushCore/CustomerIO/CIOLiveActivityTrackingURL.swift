import Foundation

/// Customer.io's Live Activity tap-tracking URL (docs/specs/device-side.md §7): the widget's
/// `widgetURL` is `cio-live-activity://open?cio_delivery_id=…&cio_delivery_token=…&cio_redirect=…`,
/// built from the `cioMetadata` {deliveryId, deliveryToken, deepLink} that Customer.io puts in
/// the content-state. `handleWidgetUrl` reports `opened` for the delivery id and returns the
/// redirect; any other URL comes back unchanged.
public enum CIOLiveActivityTrackingURL {
    public static let scheme = "cio-live-activity"
    public static let host = "open"
    public static let deliveryIDKey = "cio_delivery_id"
    public static let deliveryTokenKey = "cio_delivery_token"
    public static let redirectKey = "cio_redirect"
    /// Where Customer.io's backend puts the delivery metadata inside `content-state`.
    public static let metadataKey = "cioMetadata"

    /// What a tracking URL carries.
    public struct Parsed: Sendable, Hashable {
        public var deliveryID: String?
        public var deliveryToken: String?
        public var redirect: String?
    }

    /// The tap URL for a content-state, or nil when there is nothing to track (no delivery id)
    /// and nowhere to go (no deep link). The token rides along only with a delivery id.
    public static func url(forContentState state: JSONValue) -> String? {
        guard let metadata = state[metadataKey]?.objectValue else { return nil }
        func nonEmpty(_ key: String) -> String? { metadata[key]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } }
        let id = nonEmpty("deliveryId"), link = nonEmpty("deepLink")
        guard id != nil || link != nil else { return nil }
        var items: [URLQueryItem] = []
        if let id {
            items.append(URLQueryItem(name: deliveryIDKey, value: id))
            if let token = nonEmpty("deliveryToken") { items.append(URLQueryItem(name: deliveryTokenKey, value: token)) }
        }
        if let link { items.append(URLQueryItem(name: redirectKey, value: link)) }
        var components = URLComponents()
        components.scheme = scheme
        components.host = host
        components.queryItems = items
        return components.string
    }

    /// Parses a tracking URL; nil for any other URL.
    public static func parse(_ url: String) -> Parsed? {
        guard let components = URLComponents(string: url), components.scheme == scheme, components.host == host else { return nil }
        let items = components.queryItems ?? []
        func value(_ key: String) -> String? { items.first { $0.name == key }?.value }
        return Parsed(deliveryID: value(deliveryIDKey), deliveryToken: value(deliveryTokenKey), redirect: value(redirectKey))
    }
}
