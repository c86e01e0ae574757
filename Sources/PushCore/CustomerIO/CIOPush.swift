import Foundation

/// The Customer.io part of an APNs payload, read the way the iOS SDK (MessagingPush 4.x) reads
/// it (docs/specs/device-side.md §1): it is a Customer.io push when the top level has a *string*
/// `CIO-Delivery-ID` and a *string* `CIO-Delivery-Token` (empty strings count). The rich
/// fields are `CIO.push.image` and `CIO.push.link`; nothing in `aps` is read by the SDK.
public struct CIOPush: Sendable, Hashable {
    public static let deliveryIDKey = "CIO-Delivery-ID"
    public static let deliveryTokenKey = "CIO-Delivery-Token"

    public var deliveryID: String
    public var deliveryToken: String
    /// `CIO.push.image` when it is a string (the SDK ignores other types).
    public var image: String?
    /// `CIO.push.link` when it is a string.
    public var link: String?

    public init(deliveryID: String, deliveryToken: String, image: String? = nil, link: String? = nil) {
        self.deliveryID = deliveryID
        self.deliveryToken = deliveryToken
        self.image = image
        self.link = link
    }

    /// Reads an APNs payload (the top-level object). nil when it is not a Customer.io push.
    public init?(payload: JSONValue) {
        guard case .object(let top) = payload,
              let id = top[CIOPush.deliveryIDKey]?.stringValue,
              let token = top[CIOPush.deliveryTokenKey]?.stringValue else { return nil }
        let push = top["CIO"]?["push"]
        self.init(deliveryID: id, deliveryToken: token,
                  image: push?["image"]?.stringValue, link: push?["link"]?.stringValue)
    }

    /// The image URL when present and not empty (the SDK skips an empty string).
    public var imageURL: URL? { image.flatMap { $0.isEmpty ? nil : URL(string: $0) } }
    /// The deep link URL when present, non-empty and parseable.
    public var linkURL: URL? { link.flatMap { $0.isEmpty ? nil : URL(string: $0) } }

    /// The keys this push adds to a payload's top level (for the builder).
    public func payloadMembers() -> [JSONMember] {
        var out: [JSONMember] = []
        var push = JSONObject()
        if let link { push["link"] = .string(link) }
        if let image { push["image"] = .string(image) }
        if !push.isEmpty { out.append(JSONMember(key: "CIO", value: .object(JSONObject([JSONMember(key: "push", value: .object(push))])))) }
        out.append(JSONMember(key: CIOPush.deliveryIDKey, value: .string(deliveryID)))
        out.append(JSONMember(key: CIOPush.deliveryTokenKey, value: .string(deliveryToken)))
        return out
    }
}
