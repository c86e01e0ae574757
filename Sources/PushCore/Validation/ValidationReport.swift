import Foundation

/// The outcome of validating one document.
public struct ValidationReport: Sendable {
    public var format: PayloadFormat?
    /// The APNs push type the payload rules were applied for (given or inferred).
    public var pushType: APNsPushType?
    public var findings: [ValidationFinding]
    /// Minified size in bytes of what the size limit applies to (nil when unparseable).
    public var byteCount: Int?
    /// The limit that applied to `byteCount`.
    public var byteLimit: Int?
    /// The input did not parse as JSON (its one finding is the parser's, with line and column):
    /// unreadable input, which every command answers with exit status 2.
    public var unparsable = false

    public init(format: PayloadFormat?, pushType: APNsPushType? = nil, findings: [ValidationFinding],
                byteCount: Int? = nil, byteLimit: Int? = nil) {
        self.format = format
        self.pushType = pushType
        self.findings = findings
        self.byteCount = byteCount
        self.byteLimit = byteLimit
    }

    public var errors: [ValidationFinding] { findings.filter { $0.severity == .error } }
    public var warnings: [ValidationFinding] { findings.filter { $0.severity == .warning } }
    public var hasErrors: Bool { findings.contains { $0.severity == .error } }
    /// Passes with no errors; with `strict`, warnings fail too (info never does).
    public func passes(strict: Bool = false) -> Bool {
        !findings.contains { $0.severity == .error || (strict && $0.severity == .warning) }
    }
    public func findings(for ruleID: String) -> [ValidationFinding] { findings.filter { $0.ruleID == ruleID } }
}
