import Foundation
import PushHTTP

/// A request's query string (decoded by PushHTTP's `QueryParameters`), with typed getters whose
/// errors name the parameter.
struct Query {
    private let values: QueryParameters

    init(_ raw: String?) { values = QueryParameters(raw) }

    subscript(name: String) -> String? { values[name] }

    private func bad(_ name: String, _ message: String, fix: String) -> APIError {
        APIError(400, "invalid_query", field: "query \(name)", message, fix: fix)
    }

    /// `5s`, `500ms`, `2m` or a number of seconds, at most `max`.
    func duration(_ name: String, max: Duration) throws -> Duration {
        guard let raw = values[name] else { return .zero }
        var number = raw
        var unit = 1.0
        if raw.hasSuffix("ms") { number = String(raw.dropLast(2)); unit = 0.001 } else if raw.hasSuffix("s") { number = String(raw.dropLast()) } else if raw.hasSuffix("m") { number = String(raw.dropLast()); unit = 60 }
        guard let value = Double(number), value >= 0, value.isFinite else {
            throw bad(name, "'\(raw)' is not a duration", fix: "write e.g. \(name)=5s or \(name)=500ms")
        }
        let duration = Duration.milliseconds(Int(value * unit * 1000))
        guard duration <= max else { throw bad(name, "'\(raw)' is longer than \(max)", fix: "wait at most \(max), then ask again") }
        return duration
    }

    func int(_ name: String, range: ClosedRange<Int>) throws -> Int? {
        guard let raw = values[name] else { return nil }
        guard let v = Int(raw), range.contains(v) else {
            throw bad(name, "'\(raw)' is not a number from \(range.lowerBound) to \(range.upperBound)", fix: "write e.g. \(name)=\(range.lowerBound)")
        }
        return v
    }

    func bool(_ name: String) throws -> Bool? {
        guard let raw = values[name] else { return nil }
        switch raw {
        case "true", "1": return true
        case "false", "0": return false
        default: throw bad(name, "'\(raw)' is not true or false", fix: "write \(name)=true or \(name)=false")
        }
    }

    /// RFC 3339 (`2026-12-01T10:00:00Z`) or UNIX seconds.
    func date(_ name: String) throws -> Date? {
        guard let raw = values[name] else { return nil }
        if let seconds = Double(raw) { return Date(timeIntervalSince1970: seconds) }
        let formatter = ISO8601DateFormatter()
        if let d = formatter.date(from: raw) { return d }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let d = formatter.date(from: raw) { return d }
        throw bad(name, "'\(raw)' is not a time", fix: "write RFC 3339 (e.g. \(name)=2026-12-01T10:00:00Z) or UNIX seconds")
    }
}
