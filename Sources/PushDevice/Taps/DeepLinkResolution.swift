import Foundation

/// The three tiers of docs/specs/device-side.md §5.
public enum DeepLinkTier: Int, Sendable, Hashable, Codable, CaseIterable {
    /// The app's deep-link callback.
    case callback = 1
    /// `application(_:continue:restorationHandler:)` with a web-browsing activity.
    case continuation = 2
    /// `UIApplication.open(_:)`.
    case systemOpen = 3

    public var name: String {
        switch self {
        case .callback: return "deep-link callback"
        case .continuation: return "universal-link continuation"
        case .systemOpen: return "system open"
        }
    }
}

/// One step of the resolution, for the trace the CLI prints.
public enum DeepLinkStep: Sendable, Hashable {
    case tierHandled(DeepLinkTier, handler: String)
    case tierDeclined(DeepLinkTier, handler: String)
    case tierSkipped(DeepLinkTier, why: String)
    case bridgeBuffered(framework: String, untilSeconds: Double)
    case systemOpened(target: String)

    public var summary: String {
        switch self {
        case .tierHandled(let t, let h): return "tier \(t.rawValue) (\(t.name)): \(h) returned true"
        case .tierDeclined(let t, let h): return "tier \(t.rawValue) (\(t.name)): \(h) returned false"
        case .tierSkipped(let t, let why): return "tier \(t.rawValue) (\(t.name)): skipped, \(why)"
        case .bridgeBuffered(let f, let s): return "\(f) bridge buffered the link for \(s) s"
        case .systemOpened(let target): return "tier 3 (system open): \(target)"
        }
    }
}

/// What became of one deep link.
public struct DeepLinkResolution: Sendable, Hashable {
    /// The tier that decided; nil when no tier ran (unparsable link).
    public var tier: DeepLinkTier?
    public var destination: TapDestination
    /// Seconds after the tap when the destination opened (bridges delay cold launches).
    public var atSeconds: Double
    public var steps: [DeepLinkStep]
    public var diagnostics: [DeepLinkDiagnostic]
}
