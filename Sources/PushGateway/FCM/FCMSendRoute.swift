import Foundation
import PushCore
import PushHTTP

/// `POST /v1/projects/{project}/messages:send` — FCM HTTP v1 (docs/specs/fcm.md). Checks in order:
/// bearer access token (401 UNAUTHENTICATED), scope and project (403 PERMISSION_DENIED), body
/// JSON and the FCM rules PushCore's validator marks as enforced by FCM (400 INVALID_ARGUMENT
/// with field violations, among them the FID shape), the registration token or installation ID
/// (an APNs token → INVALID_ARGUMENT; unknown or unregistered → 404 UNREGISTERED; another
/// project's → 403 SENDER_ID_MISMATCH). Errors use
/// the Google RPC shape with FcmError details (`FCMError.json`).
struct FCMSendRoute: Sendable {
    let tokens: AccessTokenStore
    let devices: DeviceRegistry
    let records: PushRecordStore
    let sink: (any PushDeliverySink)?
    let time: TimeSource
    let ids: MessageIDs
    static let messagingScopes: Set<String> = ["https://www.googleapis.com/auth/firebase.messaging",
                                               "https://www.googleapis.com/auth/cloud-platform"]

    func handle(_ request: ServerRequest) -> HandlerReply {
        let now = time.now
        let project = request.pathParameters["project"] ?? ""
        var target: String?
        var device: EmulatedDevice?
        var deliveryID: String?
        var messageName: String?
        var validateOnly = false
        var liveActivityToken: String?
        var delivered: [UInt8]?

        let verdict: FCMError? = {
            guard let header = request.headers["authorization"], header.lowercased().hasPrefix("bearer ") else {
                return FCMError(httpStatus: 401, status: "UNAUTHENTICATED",
                                message: "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential.")
            }
            guard let grant = tokens.lookup(String(header.dropFirst(7))), grant.expiresAt > now else {
                return FCMError(httpStatus: 401, status: "UNAUTHENTICATED",
                                message: "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.")
            }
            guard !grant.scopes.isDisjoint(with: Self.messagingScopes) else {
                return FCMError(httpStatus: 403, status: "PERMISSION_DENIED", message: "Request had insufficient authentication scopes.")
            }
            guard grant.projectID == project else {
                return FCMError(httpStatus: 403, status: "PERMISSION_DENIED",
                                message: "Permission 'cloudmessaging.messages.create' denied on resource '//cloudresourcemanager.googleapis.com/projects/\(project)' (or it may not exist).")
            }
            let document: JSONDocument
            do { document = try JSONDocument.parse(request.body) } catch {
                return FCMError(.invalidArgument, message: "Invalid JSON payload received. \((error as? JSONParseError)?.message ?? "\(error)")")
            }
            let report = Validator(options: ValidationOptions(scope: .serviceEnforced, receivedByteCount: request.body.count))
                .validate(document, as: .fcm)
            let violations = report.findings.filter { $0.severity == .error }.map {
                FCMFieldViolation(field: dotted($0.pointer), description: $0.message)
            }
            if !violations.isEmpty {
                return FCMError(.invalidArgument, message: "Request contains an invalid argument.", fieldViolations: violations)
            }
            guard let send = FCMSendRequest(json: document.root) else {
                return FCMError(.invalidArgument, message: "Request contains an invalid argument.",
                                fieldViolations: [FCMFieldViolation(field: "message", description: "Exactly one of fid, token, topic or condition must be set")])
            }
            validateOnly = send.validateOnly ?? false
            liveActivityToken = send.message.liveActivityToken
            deliveryID = send.message.apnsPayload?[CIOPush.deliveryIDKey]?.stringValue
            let lookup: DeviceLookup
            switch send.message.target {
            case .token(let token):
                if DeviceToken.classify(token) == .apns {
                    target = token
                    return FCMError(.invalidArgument, message: "The registration token is not a valid FCM registration token")
                }
                lookup = devices.lookup(fcmToken: token)
            case .fid(let fid):
                lookup = devices.lookup(fid: fid)
            case .topic, .condition:
                lookup = .quickStart
            }
            target = send.message.target.isDevice ? send.message.target.value
                : send.message.target.fieldName + ":" + send.message.target.value
            if send.message.target.isDevice {
                // An FID no app instance registered is answered like an unknown token
                // (docs/specs/fcm.md "`fid` beside `token`": 404 UNREGISTERED).
                switch lookup {
                case .unknown:
                    return FCMError(.unregistered, message: "Requested entity was not found.")
                case .quickStart:
                    if project != devices.quickStartProject { return FCMError(.senderIdMismatch, message: "SenderId mismatch") }
                case .known(let d):
                    device = d
                    if let p = d.firebaseProject, p != project { return FCMError(.senderIdMismatch, message: "SenderId mismatch") }
                    if let since = d.unregisteredSince, since <= now { return FCMError(.unregistered, message: "Requested entity was not found.") }
                }
            }
            let id = validateOnly ? "fake_message_id" : "0:\(Int64(now.timeIntervalSince1970 * 1_000_000))%\(String(ids.nextUInt64(), radix: 16))"
            messageName = "projects/\(project)/messages/\(id)"
            if device?.platform == .android {
                // The Android SDK reads its delivery id from `data` (docs/specs/android-side.md §2).
                deliveryID = send.message.data.first { $0.key == AndroidSDKContract.deliveryIDKey }?.value
                if !validateOnly { delivered = request.body }
            } else if !validateOnly {
                delivered = send.message.apnsDeliveryPayload(messageID: id)
            }
            return nil
        }()

        if !validateOnly || verdict != nil {
            // The header map (authorization redacted) and the payload text are taken from the
            // request when the record is packed, not built here (PushRecordStore).
            records.record(PushRecord(receivedAt: now, service: .fcm, token: target, device: device?.name, topic: project, pushType: nil,
                                      messageID: messageName, status: verdict?.httpStatus ?? 200, reason: verdict?.reasonName,
                                      deliveryID: deliveryID, headers: [:], payload: ""),
                           rawHeaders: request.headers, body: request.body)
        }
        if let verdict { return .now(render(verdict)) }
        if let delivered, let messageName {
            let push = AcceptedPush(service: .fcm, device: device, payload: delivered, messageID: messageName,
                                    deliveryID: deliveryID, receivedAt: now, token: liveActivityToken)
            if device?.platform == .android { sink?.deliverToAndroid(push) } else { sink?.deliver(push) }
        }
        return .now(.json(200, #"{"name":"\#(messageName ?? "")"}"#))
    }

    private func render(_ error: FCMError) -> ServerResponse {
        ServerResponse(status: error.httpStatus, headers: ["content-type": "application/json; charset=UTF-8"], body: error.json)
    }

    /// The answer to a fault-plan status (`GatewayFaults`): the plan's error code, or the status's usual one.
    func faultAnswer(_ request: ServerRequest, status: Int, reason: String?) -> ServerResponse {
        render(faultError(status: status, reason: reason))
    }

    private func faultError(status: Int, reason: String?) -> FCMError {
        if let reason { return FCMError(FCMErrorCode(rawValue: reason), message: "pushlab fault plan: \(reason)") }
        switch status {
        case 429: return FCMError(.quotaExceeded, message: "Quota exceeded for quota metric 'Send requests'.")
        case 500: return FCMError(.internal, message: "Internal error encountered.")
        case 503: return FCMError(.unavailable, message: "The service is currently unavailable.")
        default: return FCMError(httpStatus: status, status: "UNKNOWN", message: "pushlab fault plan answer \(status)")
        }
    }

    /// `/message/apns/headers/apns-priority` → `message.apns.headers.apns-priority` (Google's field paths).
    private func dotted(_ pointer: JSONPointer?) -> String {
        guard let pointer, !pointer.tokens.isEmpty else { return "message" }
        return pointer.tokens.joined(separator: ".")
    }
}
