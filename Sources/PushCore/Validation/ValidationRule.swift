import Foundation

/// How bad a finding is (issue 3): `error` — the service rejects it or iOS silently drops it;
/// `warning` — a likely mistake; `info` — worth knowing.
public enum Severity: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    case error, warning, info

    public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
    private var rank: Int { switch self { case .error: 0; case .warning: 1; case .info: 2 } }
}

/// Who enforces a rule: the services themselves reject the request; iOS or the Customer.io SDK
/// silently drop something on the device; lint rules catch likely mistakes.
public enum Enforcement: String, Sendable, Hashable, Codable {
    case apns = "APNs"
    case fcm = "FCM"
    case ios = "iOS"
    case sdk = "Customer.io SDK"
    case lint

    /// True when the real service answers with an error (the gateway emulator's checks).
    public var isServiceEnforced: Bool { self == .apns || self == .fcm }
}

/// One rule of the catalog: a stable id, a severity, who enforces it, what it checks and the
/// usual fix. Checks report findings against a rule; messages add the specifics.
public struct ValidationRule: Sendable, Hashable, Identifiable, Encodable {
    public let id: String
    public let severity: Severity
    public let enforcedBy: Enforcement
    public let summary: String
    public let fix: String
    /// For rules APNs enforces: the request rule the sender and the gateway emulator apply
    /// (PushCore `APNsRequestRule`); the check decides through it and the reason comes from it,
    /// so the validator cannot drift from what the service answers.
    public let apnsRule: APNsRequestRule?

    public init(_ id: String, _ severity: Severity, _ enforcedBy: Enforcement, _ summary: String,
                fix: String, apnsRule: APNsRequestRule? = nil) {
        self.id = id
        self.severity = severity
        self.enforcedBy = enforcedBy
        self.summary = summary
        self.fix = fix
        self.apnsRule = apnsRule
    }

    /// The reason APNs answers a request breaking this rule (docs/specs/apns.md "Response").
    public var apnsReason: String? { apnsRule?.reason.rawValue }
    /// The HTTP status of that answer.
    public var apnsStatus: Int? { apnsRule?.reason.status }

    private enum CodingKeys: String, CodingKey { case id, severity, enforcedBy, summary, fix, apnsReason, apnsStatus }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(severity, forKey: .severity)
        try c.encode(enforcedBy, forKey: .enforcedBy)
        try c.encode(summary, forKey: .summary)
        try c.encode(fix, forKey: .fix)
        try c.encodeIfPresent(apnsReason, forKey: .apnsReason)
        try c.encodeIfPresent(apnsStatus, forKey: .apnsStatus)
    }
}

/// Which rules a validation runs.
public enum RuleScope: Sendable, Hashable {
    /// Every rule (the CLI, the sender's pre-flight).
    case all
    /// Only what the real APNs / FCM reject (the gateway emulator answers like the service).
    case serviceEnforced
}
