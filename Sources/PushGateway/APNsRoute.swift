import Foundation
import PushCore
import PushHTTP

/// A push the gateway accepted, on its way to an emulated device.
public struct AcceptedPush: Sendable {
    public var service: PushRecord.Service
    public var device: EmulatedDevice?
    /// The APNs payload the device receives (for FCM: built from `message.apns.payload`).
    public var payload: [UInt8]
    public var messageID: String
    public var deliveryID: String?
    public var receivedAt: Date
}

/// Where accepted pushes go: the device emulator, a test, or nowhere.
public protocol PushDeliverySink: Sendable {
    func deliver(_ push: AcceptedPush)
}

/// `POST /3/device/{token}` — answers exactly like APNs (docs/specs/apns.md). The checks run in this
/// order: request shape and headers (`APNsHeaderChecks`), authorization (`APNsAuthorizer`),
/// topic allowed for the team, device registered for the topic, unregistered token, payload
/// (empty, too large, not a JSON object), per-token throttling. Pushes that pass are recorded,
/// answered 200 and handed to the delivery sink.
struct APNsRoute: Sendable {
    let authorizer: APNsAuthorizer
    let devices: DeviceRegistry
    let throttle: TokenThrottle
    let records: PushRecordStore
    let sink: (any PushDeliverySink)?
    let time: TimeSource
    let faults: GatewayFaults?
    /// Sandbox answers carry `apns-unique-id` (docs/specs/apns.md: sandbox only).
    let sandbox: Bool
    /// MAX_CONCURRENT_STREAMS once a request with a valid token succeeded (docs/specs/apns.md: observed 500).
    let authenticatedStreamLimit: UInt32
    let ids: MessageIDs

    func handle(_ request: ServerRequest) -> HandlerReply {
        if let faults, let reply = faults.apply(request, normal: { check(request) }, error: { status, reason in
            respond(status: status, reason: reason ?? APNsRoute.defaultReason(status: status), request: request,
                    apnsID: APNsHeaderChecks.echoableID(request.headers["apns-id"]))
        }) {
            return reply
        }
        return check(request)
    }

    /// The reason a fault-plan status carries when the plan names none.
    static func defaultReason(status: Int) -> String {
        switch status {
        case 429: return "TooManyRequests"
        case 500: return "InternalServerError"
        case 503: return "ServiceUnavailable"
        case 403: return "Forbidden"
        case 410: return "Unregistered"
        case 413: return "PayloadTooLarge"
        default: return "BadPayload"
        }
    }

    private func check(_ request: ServerRequest) -> HandlerReply {
        let now = time.now
        let token = request.pathParameters["token"] ?? ""
        let facts = APNsRequestFacts(method: request.method, deviceToken: token, headers: request.headers, receivedAt: now)
        let apnsID = APNsHeaderChecks.echoableID(facts.apnsID) ?? ids.next()
        let topic = facts.topic
        let pushType = facts.pushType
        var device: EmulatedDevice?
        var deliveryID: String?
        var streamLimitRaised = false

        let verdict: APNsRejection? = {
            if let r = APNsHeaderChecks.firstRejection(facts) { return r }
            switch authorizer.authorize(header: facts.authorization, connection: request.connection, now: now) {
            case .failure(let r): return r
            case .success(let authorized): streamLimitRaised = authorized.streamLimitRaised
            }
            let bundle = bundleID(fromTopic: topic ?? "", pushType: pushType)
            let (bundleKnown, lookup) = devices.lookup(apnsToken: token, bundleID: bundle)
            guard bundleKnown else { return APNsRejection(status: 400, reason: "TopicDisallowed") }
            if !APNsHeaderChecks.topicMatchesPushType(topic ?? "", pushType: pushType) {
                return APNsRejection(status: 400, reason: "DeviceTokenNotForTopic")
            }
            switch lookup {
            case .unknown:
                return APNsRejection(status: 400, reason: "BadDeviceToken")
            case .quickStart:
                if bundle != devices.quickStartBundleID { return APNsRejection(status: 400, reason: "DeviceTokenNotForTopic") }
            case .known(let d):
                device = d
                if d.environment.rawValue != authorizer.environment.rawValue { return APNsRejection(status: 400, reason: "BadDeviceToken") }
                if d.bundleID != bundle { return APNsRejection(status: 400, reason: "DeviceTokenNotForTopic") }
                if let since = d.unregisteredSince, since <= now {
                    return APNsRejection(status: 410, reason: "Unregistered", timestamp: Int64(since.timeIntervalSince1970 * 1000))
                }
            }
            if request.body.isEmpty { return APNsRejection(status: 400, reason: "PayloadEmpty") }
            if request.body.count > APNsHeaderChecks.maxPayloadBytes(pushType: pushType) {
                return APNsRejection(status: 413, reason: "PayloadTooLarge")
            }
            switch PayloadInspector.inspect(request.body) {
            case .notAnObject:
                // Apple documents no reason for an unparsable body; pushlab answers `BadPayload`
                // (docs/gateway.md) so clients exercise their unknown-reason path.
                return APNsRejection(status: 400, reason: "BadPayload")
            case .object(let id): deliveryID = id
            }
            if !throttle.admit(token) { return APNsRejection(status: 429, reason: "TooManyRequests") }
            return nil
        }()

        record(request: request, token: token, device: device, topic: topic, pushType: pushType, apnsID: apnsID,
               status: verdict?.status ?? 200, reason: verdict?.reason, deliveryID: deliveryID, now: now)
        if let verdict {
            return .now(respond(status: verdict.status, reason: verdict.reason, timestamp: verdict.timestamp, request: request, apnsID: apnsID))
        }
        if !streamLimitRaised { raiseStreamLimitOnce(request.connection) }
        sink?.deliver(AcceptedPush(service: .apns, device: device, payload: request.body, messageID: apnsID,
                                   deliveryID: deliveryID, receivedAt: now))
        let headers = sandbox ? [HTTPHeader("apns-id", apnsID), HTTPHeader("apns-unique-id", ids.next())]
                              : [HTTPHeader("apns-id", apnsID)]
        return .now(ServerResponse(status: 200, headers: HTTPHeaders(headers)))
    }

    /// docs/specs/apns.md: one stream until a request with a valid token was accepted, then SETTINGS raise it.
    private func raiseStreamLimitOnce(_ connection: ConnectionContext) {
        let first = connection.storage.update(APNsAuthorizer.storageKey, default: APNsConnectionAuth()) { state -> Bool in
            defer { state.authenticated = true }
            return !state.authenticated
        }
        if first { connection.updateSettings(HTTP2Settings(maxConcurrentStreams: authenticatedStreamLimit)) }
    }

    private func respond(status: Int, reason: String, timestamp: Int64? = nil, request: ServerRequest, apnsID: String?) -> ServerResponse {
        var body = "{\"reason\":\"\(reason)\""
        if let timestamp { body += ",\"timestamp\":\(timestamp)" }
        body += "}"
        var headers: HTTPHeaders = [:]
        headers.add("apns-id", apnsID ?? ids.next())
        return .json(status, body, headers: headers)
    }

    private func record(request: ServerRequest, token: String, device: EmulatedDevice?, topic: String?, pushType: String?,
                        apnsID: String, status: Int, reason: String?, deliveryID: String?, now: Date) {
        // The header map and the payload text are built on the writer thread, not here.
        records.record(PushRecord(receivedAt: now, service: .apns, token: token, device: device?.name, topic: topic, pushType: pushType,
                                  messageID: apnsID, status: status, reason: reason, deliveryID: deliveryID, headers: [:], payload: ""),
                       rawHeaders: request.headers, body: request.body)
    }
}

/// The bundle id a topic addresses: the topic without the suffix of its push type.
func bundleID(fromTopic topic: String, pushType: String?) -> String {
    if let suffix = APNsHeaderChecks.topicSuffix[pushType ?? "alert"], topic.hasSuffix(suffix) {
        return String(topic.dropLast(suffix.count))
    }
    return topic
}
