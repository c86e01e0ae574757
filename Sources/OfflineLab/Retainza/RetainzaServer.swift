import Foundation
import PushCore
import PushMetrics
import PushSend

/// The Retainza server's push side as pushlab models it (docs/specs/retainza.md §4): a campaign
/// push goes through FCM (the lab's FCM client, firebase-admin's role) to every registration
/// the ingest API holds, addressed by registration token; a token FCM answers with an
/// invalid-token error is pruned as dead.
public struct RetainzaServer: Sendable {
    public let fcm: FCMClient
    public let registrations: RetainzaIngestStore

    public init(fcm: FCMClient, registrations: RetainzaIngestStore) {
        self.fcm = fcm
        self.registrations = registrations
    }

    public struct Delivery: Sendable {
        public var token: String
        public var accepted: Bool
        /// FCM's reason when refused (`INVALID_ARGUMENT`, `UNREGISTERED`, …).
        public var reason: String?
        public var detail: String?
        public var pruned: Bool
    }

    /// The FCM message a Retainza push is: an alert in `apns.payload` and the message id in `data`.
    public static func message(token: String, messageID: String, title: String, body: String) -> String {
        func esc(_ s: String) -> String { JSONValue.string(s).minifiedString }
        return #"{"message":{"token":\#(esc(token)),"data":{"\#(RetainzaContract.messageIDKey)":\#(esc(messageID))},"apns":{"payload":{"aps":{"alert":{"title":\#(esc(title)),"body":\#(esc(body))},"sound":"default"}}}}}"#
    }

    /// firebase-admin reports both as a dead token (`invalid-registration-token`,
    /// `registration-token-not-registered`); the server prunes the device (§4).
    static func prunes(_ error: FCMError) -> Bool {
        switch error.errorCode {
        case .unregistered?: return true
        case .invalidArgument?:
            // FCM names the token: in the message, or as a field violation on `message.token`.
            return error.message.contains("registration token") || error.fieldViolations.contains { $0.field == "message.token" }
        default: return false
        }
    }

    /// Sends one campaign push to every active registration (or only to `token`'s).
    public func send(messageID: String, title: String, body: String, to token: String? = nil, at: Date = Date()) async throws -> [Delivery] {
        var out: [Delivery] = []
        for device in try registrations.devices() where device.isActive && (token == nil || device.token == token) {
            let text = Self.message(token: device.token, messageID: messageID, title: title, body: body)
            let prepared = try PreparedFCMMessage(document: try JSONDocument.parse(Array(text.utf8)), validateOnly: false, validate: false)
            // firebase-admin does not check a token's shape: the request goes out and FCM refuses it.
            let result = await fcm.send(prepared, to: .token(device.token), checkTarget: false)
            switch result.outcome {
            case .accepted:
                out.append(Delivery(token: device.token, accepted: true, reason: nil, detail: nil, pruned: false))
            case .rejected(let error):
                var pruned = false
                if Self.prunes(error) { pruned = try registrations.prune(token: device.token, reason: error.reasonName, at: at) }
                out.append(Delivery(token: device.token, accepted: false, reason: error.reasonName, detail: error.message, pruned: pruned))
            default:
                out.append(Delivery(token: device.token, accepted: false, reason: "not sent", detail: "\(result.outcome)", pruned: false))
            }
        }
        return out
    }
}
