import Foundation
import PushAuth
import PushCore
import PushMetrics
import PushSend

/// The JSON shapes of the console's API (docs/console.md lists them with examples).
enum ConsoleAPI {
    /// One row of the log: the device token shortened (`Redact.token`).
    struct Summary: Encodable {
        var id: Int64
        var receivedAt: Date
        var source: String
        var platform: String
        var app: String?
        var target: String?
        var device: String?
        var pushType: String?
        var status: Int
        var reason: String?
        var messageID: String?
        var uniqueID: String?
        var deliveryID: String?
        var relayPushID: String?

        init(_ p: LoggedPush) {
            id = p.id
            receivedAt = p.receivedAt
            source = p.source.rawValue
            platform = p.platform.rawValue
            app = p.app
            target = p.target.map(Redact.token)
            device = p.device
            pushType = p.pushType
            status = p.status
            reason = p.reason
            messageID = p.messageID
            uniqueID = p.uniqueID
            deliveryID = p.deliveryID
            relayPushID = p.relayPushID
        }

        /// The JSON `encode` makes of this summary — the same keys in the same (sorted) order,
        /// nil fields left out, `receivedAt` in whole milliseconds since 1970 — written directly:
        /// the live stream encodes every push the gateway takes, and JSONEncoder's reflection
        /// would cost the gateway a share of its intake.
        func write(to out: inout [UInt8]) {
            var first = true
            func key(_ name: StaticString) {
                out.append(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
                first = false
                out.append(UInt8(ascii: "\""))
                out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
                out.append(contentsOf: "\":".utf8)
            }
            func string(_ name: StaticString, _ value: String?) {
                guard let value else { return }
                key(name)
                out.append(contentsOf: JSONValue.quoted(value).utf8)
            }
            func number(_ name: StaticString, _ value: Int64) {
                key(name)
                out.append(contentsOf: String(value).utf8)
            }
            string("app", app)
            string("deliveryID", deliveryID)
            string("device", device)
            number("id", id)
            string("messageID", messageID)
            string("platform", platform)
            string("pushType", pushType)
            string("reason", reason)
            number("receivedAt", Int64((receivedAt.timeIntervalSince1970 * 1000).rounded()))
            string("relayPushID", relayPushID)
            string("source", source)
            number("status", Int64(status))
            string("target", target)
            string("uniqueID", uniqueID)
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A live-stream batch: a JSON array of the pushes' summaries (`Summary.write`).
    static func encodeStream(_ pushes: [LoggedPush]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(pushes.count * 320)
        out.append(UInt8(ascii: "["))
        for (i, push) in pushes.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            Summary(push).write(to: &out)
        }
        out.append(UInt8(ascii: "]"))
        return out
    }

    struct Page: Encodable {
        var pushes: [Summary]
        var total: Int
        var latestID: Int64
        var nextBefore: Int64?
    }

    /// The gateway's answer as the sender saw it.
    struct Answer: Encodable {
        var status: Int
        var headers: [String: String]
        var body: String
    }

    struct Detail: Encodable {
        var push: Summary
        var headers: [String: String]
        var payload: String
        var validation: Validation
        var answer: Answer
        var device: DeviceNotification?
    }

    /// A validator report, as `pushlab validate --json` words it.
    struct Validation: Encodable {
        var format: String?
        var pushType: String?
        var byteCount: Int?
        var byteLimit: Int?
        var findings: [ValidationFinding]

        init(_ r: ValidationReport) {
            format = r.format?.rawValue
            pushType = r.pushType?.rawValue
            byteCount = r.byteCount
            byteLimit = r.byteLimit
            findings = r.findings
        }
    }

    /// What `POST /console/api/validate` takes.
    struct ValidateRequest: Decodable {
        var payload: String
        /// `apns`, `fcm`, `simulator` or absent / `auto` (detected as `pushlab validate` does).
        var format: String?
        var pushType: String?
        var priority: String?
        var topic: String?
        var token: String?
    }

    struct SendAnswer: Encodable {
        var outcome: String
        var status: Int?
        var reason: String?
        var detail: String?
        /// apns-id or FCM message name.
        var id: String?
        var target: String
        /// The server the push went to (`ConsoleSender.Target`'s URL for its platform).
        var host: String?

        init(_ r: DeliveryReport, host: String?) {
            self.host = host
            outcome = r.outcome.rawValue
            status = r.status
            reason = r.reason
            detail = r.detail
            id = r.id
            target = Redact.token(r.target)
        }
    }

    struct Devices: Encodable {
        struct Device: Encodable {
            var name: String
            /// `ios` or `android`.
            var platform: String
            var app: String
            var sdkMode: String
            var notifications: [DeviceNotification]
        }
        var devices: [Device]
    }

    struct Metrics: Encodable {
        var report: MetricsReport?
        /// The `simulate --chart` sweep (SVG text) the console was started with.
        var simulateChart: String?
        var note: String?
    }

    struct Status: Encodable {
        var pushes: Int
        var latestID: Int64
        var capacity: Int
        var canSendAPNs: Bool
        var canSendFCM: Bool
        /// Where the send form can send: this lab's gateway and, with a profile, the real services.
        var targets: [ConsoleSender.Target]
        var hasPhone: Bool
        var hasMetrics: Bool
        var pageSize: Int
        /// True on `pushlab relay --console`: the send form, devices and metrics are the relay's.
        var relay: Bool
    }

    static func encode<T: Encodable>(_ value: T) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Milliseconds since 1970: what JavaScript's `new Date(ms)` takes.
        encoder.dateEncodingStrategy = .millisecondsSince1970
        return Array((try? encoder.encode(value)) ?? Data("{}".utf8))
    }
}
