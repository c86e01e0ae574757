import Foundation
import PushCore

/// What happened to one upload (a `/v1/b` batch or one legacy event) and therefore to its events
/// (docs/specs/device-side.md §3: 2xx → delete; 400 → delete without retry; 429, other 4xx, 5xx and
/// network errors → keep for the next flush).
public enum UploadOutcome: Sendable, Hashable, Codable {
    /// 2xx: the events are deleted from the queue.
    case accepted(status: Int)
    /// 400: the server will never take these events; deleted without retry.
    case rejected(status: Int)
    /// Kept in the queue for the next flush.
    case kept(KeepReason)

    public enum KeepReason: Sendable, Hashable, Codable {
        case status(Int)
        case network(String)
        /// Legacy mode paused all requests after exhausting its retries.
        case paused(until: Date)
    }

    /// True when the events left the queue (sent or given up on).
    public var removesEvents: Bool {
        switch self {
        case .accepted, .rejected: return true
        case .kept: return false
        }
    }

    /// Classifies a response status per §3.
    public static func forStatus(_ status: Int) -> UploadOutcome {
        if (200..<300).contains(status) { return .accepted(status: status) }
        if status == 400 { return .rejected(status: status) }
        return .kept(.status(status))
    }

    public var summary: String {
        switch self {
        case .accepted(let s): return "\(s) accepted, deleted"
        case .rejected(let s): return "\(s) rejected, deleted without retry"
        case .kept(.status(let s)): return "\(s), kept for the next flush"
        case .kept(.network(let why)): return "network error (\(why)), kept for the next flush"
        case .kept(.paused(let until)): return "paused until \(ISO8601Timestamp.format(until)), kept"
        }
    }
}

/// One request the pipeline sent (or would send), with what became of its events.
public struct UploadAttempt: Sendable {
    public var request: HTTPRequestSummary
    public var messageIds: [String]
    /// Retries before the final outcome (legacy mode only).
    public var retries: Int
    public var outcome: UploadOutcome
}

/// A request without secrets: the Authorization value is redacted so it can be printed.
public struct HTTPRequestSummary: Sendable, Hashable, Codable {
    public var method: String
    public var url: String
    /// Header name and value; `authorization` shows the scheme only (`Basic <redacted>`).
    public var headers: [[String]]
    public var body: String
}

/// The result of one `flush()`.
public struct FlushReport: Sendable {
    public var attempts: [UploadAttempt]
    /// Events still queued after the flush.
    public var remaining: Int

    public var sentEvents: Int { attempts.filter { if case .accepted = $0.outcome { return true } else { return false } }.reduce(0) { $0 + $1.messageIds.count } }
}
