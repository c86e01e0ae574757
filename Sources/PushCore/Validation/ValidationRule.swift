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
public struct ValidationRule: Sendable, Hashable, Identifiable, Codable {
    public let id: String
    public let severity: Severity
    public let enforcedBy: Enforcement
    public let summary: String
    public let fix: String
    /// For rules APNs enforces: the reason (and HTTP status) it answers with (docs/specs/apns.md "Response").
    public let apnsReason: String?
    public let apnsStatus: Int?

    public init(_ id: String, _ severity: Severity, _ enforcedBy: Enforcement, _ summary: String,
                fix: String, apnsReason: String? = nil, apnsStatus: Int? = nil) {
        self.id = id
        self.severity = severity
        self.enforcedBy = enforcedBy
        self.summary = summary
        self.fix = fix
        self.apnsReason = apnsReason
        self.apnsStatus = apnsStatus
    }
}

/// Which rules a validation runs.
public enum RuleScope: Sendable, Hashable {
    /// Every rule (the CLI, the sender's pre-flight).
    case all
    /// Only what the real APNs / FCM reject (the gateway emulator answers like the service).
    case serviceEnforced
}
