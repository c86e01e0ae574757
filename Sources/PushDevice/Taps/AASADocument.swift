import Foundation

/// An apple-app-site-association file, reduced to what universal links use:
/// `applinks.details[]` with `appIDs` (or the older `appID`) and `components` (or `paths`).
public struct AASADocument: Sendable, Hashable, Decodable {
    public struct Detail: Sendable, Hashable, Decodable {
        public var appIDs: [String]
        public var components: [AASAComponent]?
        public var paths: [String]?

        enum CodingKeys: String, CodingKey { case appIDs, appID, components, paths }

        public init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            if let ids = try c.decodeIfPresent([String].self, forKey: .appIDs) {
                appIDs = ids
            } else {
                appIDs = [try c.decode(String.self, forKey: .appID)]
            }
            components = try c.decodeIfPresent([AASAComponent].self, forKey: .components)
            paths = try c.decodeIfPresent([String].self, forKey: .paths)
        }
    }

    public var details: [Detail]

    enum RootKeys: String, CodingKey { case applinks }
    enum ApplinksKeys: String, CodingKey { case details }

    public init(from decoder: Decoder) throws {
        let root = try decoder.container(keyedBy: RootKeys.self)
        let applinks = try root.nestedContainer(keyedBy: ApplinksKeys.self, forKey: .applinks)
        details = try applinks.decode([Detail].self, forKey: .details)
    }

    public static func parse(_ bytes: [UInt8]) throws -> AASADocument {
        try JSONDecoder().decode(AASADocument.self, from: Data(bytes))
    }

    /// The rules the file publishes for `appID` (`<team id>.<bundle id>`) on `domain`; nil when
    /// the file does not list the app (then no URL of the domain opens it).
    public func associatedDomain(_ domain: String, appID: String) -> AssociatedDomain? {
        guard let detail = details.first(where: { $0.appIDs.contains(appID) || $0.appIDs.contains("*") }) else { return nil }
        return AssociatedDomain(domain: domain, components: detail.components, paths: detail.paths)
    }
}
