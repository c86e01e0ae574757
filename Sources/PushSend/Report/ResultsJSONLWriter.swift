import Foundation
import PushCore

/// `--out results.jsonl`: one JSON object per push, in completion order:
/// `{"token", "apns_id"|"name", "status", "outcome", "reason", "timestamp", "attempts",
/// "latency_ms", "sent_at"}`. Absent values are `null` so every line has the same keys.
public final class ResultsJSONLWriter: BulkReportSink {
    private let out: BufferedFileWriter
    private let formatter: ISO8601DateFormatter

    public init(path: String) throws(BulkInputError) {
        out = try BufferedFileWriter(path: path)
        formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    }

    public func record(_ report: DeliveryReport) throws {
        try out.write(line(for: report))
    }

    public func finish() throws { try out.flush() }

    /// The JSON line for one report, newline included.
    public func line(for r: DeliveryReport) -> String {
        let idKey = r.provider == .apns ? "apns_id" : "name"
        var s = "{\"token\":" + JSONValue.quoted(r.target)
        s += ",\"\(idKey)\":" + quotedOrNull(r.id)
        s += ",\"status\":" + (r.status.map(String.init) ?? "null")
        s += ",\"outcome\":\"\(r.outcome.rawValue)\""
        s += ",\"reason\":" + quotedOrNull(r.reason)
        s += ",\"timestamp\":" + (r.timestamp.map(String.init) ?? "null")
        s += ",\"attempts\":\(r.attempts)"
        s += ",\"latency_ms\":" + String(format: "%.3f", r.latency.inMilliseconds)
        s += ",\"sent_at\":\"" + formatter.string(from: r.sentAt) + "\""
        if let detail = r.detail, r.outcome != .accepted { s += ",\"detail\":" + JSONValue.quoted(detail) }
        return s + "}\n"
    }

    /// A string value of the line (PushCore's escaping), or `null` when absent.
    private func quotedOrNull(_ value: String?) -> String { value.map(JSONValue.quoted) ?? "null" }
}
