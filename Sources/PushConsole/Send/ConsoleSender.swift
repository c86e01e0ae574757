import Foundation
import PushCore
import PushSend

/// A refusal of the send form's input: the field (a JSON pointer into the form's body) and how to fix it.
public struct ConsoleInputError: Error, Sendable, Encodable {
    public var field: String
    public var error: String
    public var fix: String
}

/// Sends the console form's pushes with pushlab's own clients (the same as `pushlab send`): to
/// the gateway the console runs beside (`lab`), or with a profile's credentials to Apple's and
/// Google's servers (`serve --console-profile`). Only `target` — hosts and names, never key
/// material — reaches the page.
public struct ConsoleSender: Sendable {
    /// Where a sender's pushes go, as the send form shows it.
    public struct Target: Sendable, Encodable, Equatable {
        /// `lab`, or `profile`.
        public var id: String
        /// E.g. `this lab's gateway` or `profile myapp-dev`.
        public var label: String
        /// The APNs base URL (e.g. `https://api.sandbox.push.apple.com:443`) and FCM's; nil
        /// when the sender has no client for that service.
        public var apnsURL: String?
        public var fcmURL: String?
        /// `sandbox` or `production` when `apnsURL` is one of Apple's hosts.
        public var apnsEnvironment: String?
        /// The bundle id the form should default to, and the Firebase project.
        public var topic: String?
        public var project: String?
        /// True when the pushes leave this machine for Apple's or Google's servers.
        public var real: Bool

        public init(id: String, label: String, apnsURL: String?, fcmURL: String?, apnsEnvironment: String? = nil,
                    topic: String? = nil, project: String? = nil, real: Bool) {
            self.id = id
            self.label = label
            self.apnsURL = apnsURL
            self.fcmURL = fcmURL
            self.apnsEnvironment = apnsEnvironment
            self.topic = topic
            self.project = project
            self.real = real
        }
    }

    public var apns: APNsClient?
    public var fcm: FCMClient?
    /// Where this sender's pushes go; by default this lab's gateway.
    public var target: Target

    public init(apns: APNsClient?, fcm: FCMClient?) {
        self.apns = apns
        self.fcm = fcm
        target = Target(id: "lab", label: "this lab's gateway", apnsURL: apns?.endpoint.baseURL, fcmURL: fcm?.baseURL, real: false)
    }

    /// Sends the form's push; a pre-flight refusal (the same checks as `pushlab send`) throws.
    public func send(_ form: SendFormRequest) async throws(ConsoleInputError) -> DeliveryReport {
        switch form.platform {
        case "apns":
            guard let apns else { throw ConsoleInputError(field: "/platform", error: "this console has no APNs client", fix: "send with FCM") }
            guard let token = form.token, !token.isEmpty else {
                throw ConsoleInputError(field: "/token", error: "an APNs push needs a device token", fix: "enter the device token (64 hex digits)")
            }
            var pushType: APNsPushType?
            if let raw = form.pushType, !raw.isEmpty {
                guard let t = APNsPushType(rawValue: raw) else {
                    throw ConsoleInputError(field: "/pushType", error: "'\(raw)' is not an APNs push type",
                                            fix: "pick one of " + APNsPushType.allCases.map(\.rawValue).joined(separator: ", "))
                }
                pushType = t
            }
            let prepared: PreparedAPNsPush
            do {
                prepared = try PreparedAPNsPush(payload: Array(form.payload.utf8),
                                                options: APNsPushOptions(topic: form.topic.flatMap { $0.isEmpty ? nil : $0 } ?? target.topic,
                                                                         pushType: pushType, priority: form.priority))
            } catch {
                throw ConsoleInputError(field: Self.field(of: error), error: "\(error)", fix: "fix the field named here (the payload's findings are shown under it)")
            }
            return await apns.send(prepared, to: token).report
        case "fcm":
            guard let fcm else { throw ConsoleInputError(field: "/platform", error: "this console has no FCM client", fix: "send with APNs") }
            let message: PreparedFCMMessage
            do {
                message = try PreparedFCMMessage(document: try JSONDocument.parse(Array(form.payload.utf8)), validateOnly: false)
            } catch {
                throw ConsoleInputError(field: "/payload", error: "\(error)", fix: "write an FCM v1 request: {\"message\": {\"token\": …, …}}")
            }
            guard let target = message.fileTarget else {
                throw ConsoleInputError(field: "/payload", error: "the FCM message names no target",
                                        fix: "add /message/token (or /message/topic, /message/condition)")
            }
            return await fcm.send(message, to: target).report
        default:
            throw ConsoleInputError(field: "/platform", error: "platform '\(form.platform)' is neither apns nor fcm", fix: "send \"apns\" or \"fcm\"")
        }
    }

    /// The form field a pre-flight refusal is about.
    static func field(of error: APNsPreflightError) -> String {
        switch error {
        case .missingTopic: return "/topic"
        case .badPriority, .backgroundNeedsPriority5: return "/priority"
        default: return "/payload"
        }
    }
}
