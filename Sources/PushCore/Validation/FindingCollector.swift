import Foundation

/// Collects findings, dropping rules outside the requested scope. At most
/// `maxPerRule` findings are kept per rule (the last one says how many more there were), so a
/// hostile 1 MB document with 50,000 bad values costs bounded time and output.
struct FindingCollector {
    static let maxPerRule = 50
    let scope: RuleScope
    var findings: [ValidationFinding] = []
    private var counts: [String: (kept: Int, last: Int, dropped: Int)] = [:]

    init(scope: RuleScope) { self.scope = scope }

    /// The message and fix are built only for findings that are kept.
    mutating func report(_ rule: ValidationRule, _ pointer: @autoclosure () -> JSONPointer?, _ message: @autoclosure () -> String,
                         fix: @autoclosure () -> String? = nil, header: String? = nil) {
        if scope == .serviceEnforced && !rule.enforcedBy.isServiceEnforced { return }
        var count = counts[rule.id] ?? (0, 0, 0)
        if count.kept >= FindingCollector.maxPerRule {
            count.dropped += 1
            counts[rule.id] = count
            return
        }
        findings.append(ValidationFinding(rule: rule, pointer: pointer(), header: header, message: message(), fix: fix()))
        counts[rule.id] = (count.kept + 1, findings.count - 1, 0)
    }

    /// The findings, with "and N more" on the last kept finding of a rule that hit the cap.
    mutating func finish() -> [ValidationFinding] {
        for (_, c) in counts where c.dropped > 0 {
            findings[c.last].message += " (and \(c.dropped) more like this, not listed)"
        }
        return findings
    }
}
