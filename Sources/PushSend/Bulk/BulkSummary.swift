/// Counts of a bulk send.
public struct BulkSummary: Sendable, Hashable, Codable {
    public var total = 0
    public var accepted = 0
    public var rejected = 0
    public var failed = 0
    public var invalid = 0
    public var pruned = 0
    /// Attempts beyond the first, summed (how much retrying happened).
    public var retries = 0
    /// Count per reason (APNs reason, FCM errorCode, failure name).
    public var reasons: [String: Int] = [:]
    public var elapsed: Duration = .zero

    public init() {}

    public mutating func add(_ r: DeliveryReport) {
        total += 1
        switch r.outcome {
        case .accepted: accepted += 1
        case .rejected: rejected += 1
        case .failed: failed += 1
        case .invalid: invalid += 1
        }
        if r.prune { pruned += 1 }
        retries += max(0, r.attempts - 1)
        // A hostile server could invent endless reasons; keep the table bounded.
        if let reason = r.reason, reasons[reason] != nil || reasons.count < 64 { reasons[reason, default: 0] += 1 }
    }

    /// Pushes that did not go through, for whatever reason.
    public var notAccepted: Int { total - accepted }

    /// Pushes answered per second.
    public var rate: Double {
        let s = elapsed.inSeconds
        return s > 0 ? Double(total) / s : 0
    }

    enum CodingKeys: String, CodingKey { case total, accepted, rejected, failed, invalid, pruned, retries, reasons, elapsedSeconds, perSecond }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(total, forKey: .total)
        try c.encode(accepted, forKey: .accepted)
        try c.encode(rejected, forKey: .rejected)
        try c.encode(failed, forKey: .failed)
        try c.encode(invalid, forKey: .invalid)
        try c.encode(pruned, forKey: .pruned)
        try c.encode(retries, forKey: .retries)
        try c.encode(reasons, forKey: .reasons)
        try c.encode((elapsed.inSeconds * 1000).rounded() / 1000, forKey: .elapsedSeconds)
        try c.encode(rate.rounded(), forKey: .perSecond)
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        total = try c.decode(Int.self, forKey: .total)
        accepted = try c.decode(Int.self, forKey: .accepted)
        rejected = try c.decode(Int.self, forKey: .rejected)
        failed = try c.decode(Int.self, forKey: .failed)
        invalid = try c.decode(Int.self, forKey: .invalid)
        pruned = try c.decode(Int.self, forKey: .pruned)
        retries = try c.decode(Int.self, forKey: .retries)
        reasons = try c.decode([String: Int].self, forKey: .reasons)
        elapsed = .milliseconds(Int64(try c.decode(Double.self, forKey: .elapsedSeconds) * 1000))
    }
}
