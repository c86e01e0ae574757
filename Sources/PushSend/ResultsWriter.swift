import Foundation
import PushCore
import PushStore

/// Receives every report of a bulk send, one at a time, from the bulk engine's one loop.
public protocol BulkReportSink: AnyObject {
    func record(_ report: DeliveryReport) throws
    /// Flushes whatever is buffered. Called once at the end (also after a failure).
    func finish() throws
}

/// Appends bytes to a file (or standard output for `-`) through a buffer, so a million
/// result lines cost a few hundred `write` calls. Not thread-safe: one owner.
public final class BufferedFileWriter {
    public let path: String
    private let fd: Int32
    private let ownsDescriptor: Bool
    private var buffer: [UInt8] = []
    private let capacity: Int

    /// Creates or truncates `path`; `-` writes to standard output.
    public init(path: String, capacity: Int = 64 * 1024) throws(BulkInputError) {
        self.path = path
        self.capacity = capacity
        if path == "-" {
            fd = STDOUT_FILENO
            ownsDescriptor = false
        } else {
            let opened = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard opened >= 0 else { throw .unwritableOutput(path, String(cString: strerror(errno))) }
            fd = opened
            ownsDescriptor = true
        }
        buffer.reserveCapacity(capacity)
    }

    deinit {
        try? flush()
        if ownsDescriptor { close(fd) }
    }

    public func write(_ text: String) throws(BulkInputError) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= capacity { try flush() }
    }

    public func flush() throws(BulkInputError) {
        let failure = FileDescriptorWrites.writeAll(fd, buffer)
        if failure != 0 { throw .unwritableOutput(path, String(cString: strerror(failure))) }
        buffer.removeAll(keepingCapacity: true)
    }
}

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

/// `--prune-file`: the tokens the provider says are dead (APNs Unregistered, BadDeviceToken,
/// ExpiredToken; FCM UNREGISTERED), one per line, ready to delete from the audience.
public final class PruneFileWriter: BulkReportSink {
    private let out: BufferedFileWriter
    public private(set) var count = 0

    public init(path: String) throws(BulkInputError) { out = try BufferedFileWriter(path: path) }

    public func record(_ report: DeliveryReport) throws {
        guard report.prune else { return }
        count += 1
        try out.write(report.target + "\n")
    }

    public func finish() throws { try out.flush() }
}
