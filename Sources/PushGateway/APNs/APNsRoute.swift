import Foundation
import PushCore
import PushHTTP

/// `POST /3/device/{token}` — answers exactly like APNs (docs/specs/apns.md). The checks run in this
/// order: request shape and headers (PushCore `APNsRequestRules.headerChecks`), authorization
/// (`APNsAuthorizer`), topic allowed for the team and fitting the push type, device registered
/// for the topic, unregistered token, payload (`APNsRequestRules.payloadChecks`, then not a JSON
/// object), per-token throttling. Pushes that pass are recorded,
/// answered 200 and handed to the delivery sink.
struct APNsRoute: Sendable {
    let authorizer: APNsAuthorizer
    let devices: DeviceRegistry
    let throttle: TokenThrottle
    let records: PushRecordStore
    let sink: (any PushDeliverySink)?
    let time: TimeSource
    /// Sandbox answers carry `apns-unique-id` (docs/specs/apns.md: sandbox only).
    let sandbox: Bool
    /// MAX_CONCURRENT_STREAMS once a request with a valid token succeeded (docs/specs/apns.md: observed 500).
    let authenticatedStreamLimit: UInt32
    let ids: RandomUUIDSource

    /// The answer to a fault-plan status (`GatewayFaults`): the plan's reason, or the status's usual one.
    func faultAnswer(_ request: ServerRequest, status: Int, reason: String?) -> ServerResponse {
        // Only a canonical id is echoed (`APNsID.echoable`); anything else gets a fresh one.
        respond(APNsRejection(status: status, reason: reason.map(APNsReason.init(rawValue:)) ?? Self.defaultReason(status: status)),
                apnsID: request.headers[APNsHeader.id].flatMap(CanonicalUUIDText.init))
    }

    /// The reason a fault-plan status carries when the plan names none.
    static func defaultReason(status: Int) -> APNsReason {
        switch status {
        case 429: return .tooManyRequests
        case 500: return .internalServerError
        case 503: return .serviceUnavailable
        case 403: return .forbidden
        case 410: return .unregistered
        case 413: return .payloadTooLarge
        default: return .emulatorBadPayload
        }
    }

    func handle(_ request: ServerRequest) -> HandlerReply {
        let now = time.now
        // The request as APNs reads it, pulled out in one pass over the header fields.
        var apns = APNsRequest(method: request.method, deviceToken: request.pathParameters["token"] ?? "", body: request.body)
        for field in request.headers { apns.add(wireField: field.name, value: field.value) }
        let token = apns.deviceToken
        // The id as inline text, given or made: echoed, recorded and handed on without a string.
        let apnsID = apns.apnsID?.known?.text ?? ids.nextText()
        var device: EmulatedDevice?
        var deliveryID: String?
        var streamLimitRaised = false
        var certificateTopics: [String]?

        let verdict: APNsRejection? = {
            if let rule = APNsRequestRules.firstViolation(of: APNsRequestRules.headerChecks, in: apns) { return APNsRejection(rule.reason) }
            switch authorizer.authorize(header: apns.authorization, connection: request.connection, now: now) {
            case .failure(let r): return r
            case .success(let authorized):
                streamLimitRaised = authorized.streamLimitRaised
                certificateTopics = authorized.certificateTopics
            }
            if let topics = certificateTopics, !topics.isEmpty, !topics.contains(apns.topic ?? "") {
                return APNsRejection(.topicDisallowed)
            }
            let bundle = apns.effectivePushType.bundleID(fromTopic: apns.topic ?? "")
            let (bundleKnown, lookup) = devices.lookup(apnsToken: token, bundleID: bundle)
            guard bundleKnown else { return APNsRejection(.topicDisallowed) }
            if let rule = APNsRequestRules.firstViolation(of: APNsRequestRules.topicChecks, in: apns) { return APNsRejection(rule.reason) }
            switch lookup {
            case .unknown:
                return APNsRejection(.badDeviceToken)
            case .quickStart:
                if bundle != devices.quickStartBundleID { return APNsRejection(.deviceTokenNotForTopic) }
            case .known(let d):
                device = d
                if d.environment.rawValue != authorizer.environment.rawValue { return APNsRejection(.badDeviceToken) }
                if d.bundleID != bundle { return APNsRejection(.deviceTokenNotForTopic) }
                if let since = d.unregisteredSince, since <= now {
                    return APNsRejection(.unregistered, timestamp: Int64(since.timeIntervalSince1970 * 1000))
                }
            }
            if let rule = APNsRequestRules.firstViolation(of: APNsRequestRules.payloadChecks, in: apns) { return APNsRejection(rule.reason) }
            switch PayloadInspector.inspect(request.body) {
            case .notAnObject:
                // Apple documents no reason for an unparsable body; pushlab answers `BadPayload`
                // (docs/gateway.md) so clients exercise their unknown-reason path.
                return APNsRejection(.emulatorBadPayload)
            case .object(let id): deliveryID = id
            }
            if !throttle.admit(token) { return APNsRejection(.tooManyRequests) }
            return nil
        }()

        let uniqueID = verdict == nil && sandbox ? ids.nextText() : nil
        record(request: request, token: token, device: device, topic: apns.topic, pushType: apns.pushType?.header, apnsID: apnsID,
               status: verdict?.status ?? 200, reason: verdict?.reasonName, deliveryID: deliveryID, uniqueID: uniqueID, now: now)
        if let verdict { return .now(respond(verdict, apnsID: apnsID)) }
        if !streamLimitRaised { raiseStreamLimitOnce(request.connection) }
        sink?.deliver(AcceptedPush(service: .apns, device: device, payload: request.body, messageID: apnsID,
                                   deliveryID: deliveryID, receivedAt: now, token: token, priority: apns.priority.flatMap { Int($0.header) }))
        return .now(ServerResponse(status: 200, inlineHeaders: InlineHeaderFields(Self.field(Self.idField, apnsID),
                                                                                  uniqueID.map { Self.field(Self.uniqueIDField, $0) })))
    }

    /// docs/specs/apns.md: one stream until a request with a valid token was accepted, then SETTINGS raise it.
    private func raiseStreamLimitOnce(_ connection: ConnectionContext) {
        let first = connection.storage.update(APNsAuthorizer.storageKey, default: APNsConnectionAuth()) { state -> Bool in
            defer { state.authenticated = true }
            return !state.authenticated
        }
        if first { connection.updateSettings(HTTP2Settings(maxConcurrentStreams: authenticatedStreamLimit)) }
    }

    /// The error answer: the rejection's status, `{"reason":…}` (plus `timestamp` on 410) and an
    /// `apns-id` header, as APNs sends it.
    private func respond(_ rejection: APNsRejection, apnsID: CanonicalUUIDText?) -> ServerResponse {
        .json(rejection.status, String(decoding: rejection.body.json, as: UTF8.self),
              inlineHeaders: InlineHeaderFields(Self.field(Self.idField, apnsID ?? ids.nextText())))
    }

    /// The answer's id fields, named once; `field` fills in each answer's id.
    private static let idField = InlineHeaderField(APNsHeader.id, bytes: UnsafeBufferPointer(start: nil, count: 0))!
    private static let uniqueIDField = InlineHeaderField(APNsHeader.uniqueID, bytes: UnsafeBufferPointer(start: nil, count: 0))!

    /// `named` with an id's 36 bytes copied inline (no string).
    private static func field(_ named: InlineHeaderField, _ id: CanonicalUUIDText) -> InlineHeaderField {
        // 36 bytes always fit an inline field (40).
        id.withBytes { named.with(value: $0)! }
    }

    private func record(request: ServerRequest, token: String, device: EmulatedDevice?, topic: String?, pushType: String?,
                        apnsID: CanonicalUUIDText, status: Int, reason: String?, deliveryID: String?, uniqueID: CanonicalUUIDText?,
                        now: Date) {
        // The header map and the payload text are built on the writer thread, not here; the
        // ids are packed from their inline text.
        records.record(PushRecord(receivedAt: now, service: .apns, token: token, device: device?.name, topic: topic, pushType: pushType,
                                  messageID: nil, status: status, reason: reason, deliveryID: deliveryID, headers: [:], payload: ""),
                       rawHeaders: request.headers, body: request.body, messageID: apnsID, uniqueID: uniqueID)
    }
}
