import Foundation
import PushCore
import PushHTTP
import PushSend

/// What a single send prints (text or --json).
extension SendSupport {
    /// A device token or Firebase Installation ID shortened (first 8 characters + …) as everywhere
    /// pushlab prints one; FCM topics and conditions are not secrets and stay whole.
    static func printableTarget(_ target: String) -> String {
        DeviceToken.classify(target) == .invalid && !FirebaseInstallationID.isValid(target) ? target : DeviceToken.redacted(target)
    }

    /// Prints one push's result; returns the exit status.
    static func printSingle(_ r: DeliveryReport, fix: String?, extra: [String: String], json: Bool) throws -> Int32 {
        if json {
            var obj: [String: JSONValue] = [
                "provider": .string(r.provider.rawValue), "token": .string(printableTarget(r.target)), "outcome": .string(r.outcome.rawValue),
                "attempts": .number(JSONNumber(r.attempts)),
                "latency_ms": .number(JSONNumber((r.latency.seconds * 1e6).rounded() / 1000)),
            ]
            obj[r.provider == .apns ? "apns_id" : "name"] = r.id.map { .string($0) } ?? .null
            obj["status"] = r.status.map { .number(JSONNumber($0)) } ?? .null
            obj["reason"] = r.reason.map { .string($0) } ?? .null
            // APNs 410's timestamp (ms since the epoch on the wire) as a date, like every date in --json.
            if let t = r.timestamp { obj["timestamp"] = .string(ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(t) / 1000))) }
            if let kind = r.targetKind { obj["target_kind"] = .string(kind) }
            if let d = r.detail { obj["detail"] = .string(d) }
            if let fix, !r.isAccepted { obj["fix"] = .string(fix) }
            for (k, v) in extra { obj[k] = .string(v) }
            let members = obj.keys.sorted().map { JSONMember(key: $0, value: obj[$0]!) }
            emit(JSONValue.object(JSONObject(members)).prettyPrinted())
        } else {
            let ms = r.latency.seconds * 1000
            let attempts = "\(r.attempts) attempt\(r.attempts == 1 ? "" : "s"), \(Int(ms.rounded())) ms"
            switch r.outcome {
            case .accepted:
                let idName = r.provider == .apns ? APNsHeader.id : "name"
                var line = "accepted: \(idName) \(r.id ?? "-") (\(r.status ?? 200), \(attempts))"
                for (k, v) in extra.sorted(by: { $0.key < $1.key }) { line += "\n  \(k): \(v)" }
                emit(line)
            case .rejected, .failed, .invalid:
                var line = "\(r.outcome.rawValue): \(r.reason ?? "error")"
                if let s = r.status { line += " (HTTP \(s), \(attempts))" }
                if let t = r.timestamp { line += "\n  token last valid: \(ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(t) / 1000)))" }
                if let d = r.detail { line += "\n  \(d)" }
                if let fix { line += "\n  fix: \(fix)" }
                emit(line)
            }
        }
        switch r.outcome {
        case .accepted: return ExitStatus.success
        case .invalid: return ExitStatus.usage
        case .rejected, .failed: return ExitStatus.failure
        }
    }
}
