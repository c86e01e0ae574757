import Foundation
import PushCore
import PushDevice

/// Where a tap on the notification would take the user, and through which of the three tiers
/// (docs/specs/device-side.md §5), resolved with the app profile's deep-link setup.
public struct TapPreview: Sendable, Codable, Equatable {
    public var link: String?
    /// 1 callback, 2 universal-link continuation, 3 system open; nil when no tier handled it.
    public var tier: Int?
    public var tierName: String?
    /// `app-route`, `app-home`, `other-app`, `browser` or `nothing`.
    public var destination: String
    public var summary: String
    public var diagnostics: [String]

    public init(payload: JSONValue, profile: AppProfile) {
        link = CIOPush(payload: payload)?.link.flatMap { $0.isEmpty ? nil : $0 }
        guard let link else {
            tier = nil
            tierName = nil
            destination = TapDestination.appHome.kind
            summary = "no link: the tap opens " + TapDestination.appHome.summary
            diagnostics = []
            return
        }
        let osMajor = Int(profile.osVersion.split(separator: ".").first ?? "") ?? 17
        let resolution = DeepLinkRouter(profile: profile.deepLinks ?? DeepLinkProfile(), osMajorVersion: osMajor)
            .resolve(link, state: .warm)
        tier = resolution.tier?.rawValue
        tierName = resolution.tier?.name
        destination = resolution.destination.kind
        summary = resolution.destination.summary
        diagnostics = resolution.diagnostics.map { "\($0.code): \($0.message)" }
    }
}
