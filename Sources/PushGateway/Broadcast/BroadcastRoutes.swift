import Foundation
import PushCore
import PushHTTP

/// The channel-management API (`/1/apps/{bundle}/channels`, `/all-channels`) and the broadcast
/// endpoint (`/4/broadcasts/apps/{bundle}`), answered like APNs (docs/specs/apns.md "Channel
/// management" and "Broadcast send"). Apple serves management on its own hosts
/// (ports 2195/2196); the emulator serves both on its APNs host.
///
/// Every request runs these checks in order, each mapping to one reason:
/// 1. `apns-request-id` present but not a UUID → 400 BadMessageId
/// 2. provider token (as for device pushes) → 403 MissingProviderToken / InvalidProviderToken / …
/// 3. bundle id carrying a push-type suffix → 400 TopicDisallowed
/// 4. bundle id the emulator has no app for (Broadcast capability off) → 400 FeatureNotEnabled
/// then the operation's own checks (see each handler).
struct BroadcastRoutes: Sendable {
    let authorizer: APNsAuthorizer
    let devices: DeviceRegistry
    let channels: BroadcastChannelRegistry
    let sink: (any BroadcastDeliverySink)?
    let time: TimeSource
    let ids: RandomUUIDSource
    let authenticatedStreamLimit: UInt32

    func register(on router: inout Router) {
        router.add("POST", "/1/apps/{bundle}/channels") { create($0) }
        router.add("GET", "/1/apps/{bundle}/channels") { read($0) }
        router.add("DELETE", "/1/apps/{bundle}/channels") { delete($0) }
        router.add("GET", "/1/apps/{bundle}/all-channels") { list($0) }
        router.add("POST", "/4/broadcasts/apps/{bundle}") { broadcast($0) }
    }

    /// Create: body empty → PayloadEmpty; not JSON → BadRequestPayload; no storage policy →
    /// MissingChannelQueueSize; policy not 0/1 → BadRequestParams; no push-type →
    /// MissingPushType; push-type not LiveActivity → InvalidPushType; limit reached →
    /// CannotCreateChannelConfig. 201 with `apns-channel-id`.
    func create(_ request: ServerRequest) -> HandlerReply {
        checked(request) { bundle, requestID in
            switch BroadcastChannelSettings.parseCreateBody(request.body).flatMap({ channels.create(bundleID: bundle, settings: $0) }) {
            case .failure(let reason): return failure(reason, requestID)
            case .success(let id):
                return ServerResponse(status: 201, headers: [BroadcastChannelAPI.channelIDHeader: id, BroadcastChannelAPI.requestIDHeader: requestID])
            }
        }
    }

    /// Read: channel id missing → MissingChannelId; not base64 → BadChannelId; unknown for this
    /// bundle → ChannelNotRegistered. 200 with the settings.
    func read(_ request: ServerRequest) -> HandlerReply {
        checked(request) { bundle, requestID in
            switch channelID(request).flatMap({ channels.settings(bundleID: bundle, channelID: $0) }) {
            case .failure(let reason): return failure(reason, requestID)
            case .success(let settings):
                return ServerResponse(status: 200, headers: ["content-type": "application/json", BroadcastChannelAPI.requestIDHeader: requestID],
                                      body: settings.body)
            }
        }
    }

    /// Delete: the same checks as read. 204.
    func delete(_ request: ServerRequest) -> HandlerReply {
        checked(request) { bundle, requestID in
            switch channelID(request).flatMap({ channels.delete(bundleID: bundle, channelID: $0) }) {
            case .failure(let reason): return failure(reason, requestID)
            case .success: return ServerResponse(status: 204, headers: [BroadcastChannelAPI.requestIDHeader: requestID])
            }
        }
    }

    /// List: 200 `{"channels":[…]}` in creation order.
    func list(_ request: ServerRequest) -> HandlerReply {
        checked(request) { bundle, requestID in
            let ids = channels.list(bundleID: bundle).map { "\"\($0)\"" }.joined(separator: ",")
            return ServerResponse(status: 200, headers: ["content-type": "application/json", BroadcastChannelAPI.requestIDHeader: requestID],
                                  body: Array("{\"channels\":[\(ids)]}".utf8))
        }
    }

    /// Broadcast: channel id checks as read; `apns-push-type` missing → MissingPushType, not
    /// liveactivity → InvalidPushType; `apns-priority` not 1/5/10 → BadPriority;
    /// `apns-expiration` not a number, or not 0 on a No-Storage channel → BadExpirationDate;
    /// body empty → PayloadEmpty; over 4096 bytes → 413 PayloadTooLarge; not a JSON object →
    /// BadRequestPayload. 200, then every subscribed activity gets it.
    func broadcast(_ request: ServerRequest) -> HandlerReply {
        checked(request) { bundle, requestID in
            let now = time.now
            let id: String
            let settings: BroadcastChannelSettings
            switch channelID(request).flatMap({ id in channels.settings(bundleID: bundle, channelID: id).map { (id, $0) } }) {
            case .failure(let reason): return failure(reason, requestID)
            case .success(let found): (id, settings) = found
            }
            guard let pushType = request.headers[APNsHeader.pushType] else { return failure(.missingPushType, requestID) }
            guard pushType == APNsPushType.liveactivity.rawValue else { return failure(.apns(.invalidPushType), requestID) }
            let priority = request.headers[APNsHeader.priority].map { Int($0) ?? -1 } ?? 10
            guard [1, 5, 10].contains(priority) else { return failure(.apns(.badPriority), requestID) }
            if let raw = request.headers[APNsHeader.expiration] {
                guard let expiration = Int(raw), expiration >= 0 else { return failure(.apns(.badExpirationDate), requestID) }
                if settings.storagePolicy == .noStorage && expiration != 0 { return failure(.apns(.badExpirationDate), requestID) }
            } else if settings.storagePolicy == .noStorage {
                return failure(.apns(.badExpirationDate), requestID)
            }
            if request.body.isEmpty { return failure(.apns(.payloadEmpty), requestID) }
            if request.body.count > APNsPushType.liveactivity.maximumPayloadBytes { return failure(.apns(.payloadTooLarge), requestID) }
            guard let document = try? JSONDocument.parse(request.body), document.root.objectValue != nil else {
                return failure(.badRequestPayload, requestID)
            }
            let accepted = AcceptedBroadcast(bundleID: bundle, channelID: id, payload: request.body, priority: priority,
                                             requestID: requestID, receivedAt: now, isStoredReplay: false)
            let subscribers = channels.accept(accepted)
            if let sink, !subscribers.isEmpty { sink.deliver(accepted, to: subscribers) }
            return ServerResponse(status: 200, headers: [BroadcastChannelAPI.requestIDHeader: requestID])
        }
    }

    // MARK: - Shared checks

    private func checked(_ request: ServerRequest, _ operation: (String, String) -> ServerResponse) -> HandlerReply {
        let given = request.headers[BroadcastChannelAPI.requestIDHeader]
        let requestID = APNsID.echoable(given) ?? ids.next()
        if given != nil && APNsID.echoable(given) == nil { return .now(failure(.apns(.badMessageId), requestID)) }
        switch authorizer.authorize(header: request.headers[APNsHeader.authorization], connection: request.connection, now: time.now) {
        case .failure(let rejection):
            return .now(failure(rejection.reason.map(ChannelReason.apns) ?? .apns(.forbidden), requestID, status: rejection.status))
        case .success(let authorized):
            if !authorized.streamLimitRaised { raiseStreamLimitOnce(request.connection) }
        }
        let bundle = request.pathParameters["bundle"] ?? ""
        if APNsPushType.suffix(of: bundle) != nil { return .now(failure(.apns(.topicDisallowed), requestID)) }
        guard devices.lookup(apnsToken: "", bundleID: bundle).bundleKnown else { return .now(failure(.featureNotEnabled, requestID)) }
        return .now(operation(bundle, requestID))
    }

    private func channelID(_ request: ServerRequest) -> Result<String, ChannelReason> {
        guard let id = request.headers[BroadcastChannelAPI.channelIDHeader], !id.isEmpty else { return .failure(.missingChannelId) }
        guard BroadcastChannelAPI.isWellFormedChannelID(id) else { return .failure(.badChannelId) }
        return .success(id)
    }

    private func failure(_ reason: ChannelReason, _ requestID: String, status: Int? = nil) -> ServerResponse {
        .json(status ?? reason.status ?? 400, "{\"reason\":\"\(reason.rawValue)\"}", headers: [BroadcastChannelAPI.requestIDHeader: requestID])
    }

    /// docs/specs/apns.md: one stream until a request with a valid token succeeded, then SETTINGS raise it
    /// (the management requests share the APNs host's connections in the emulator).
    private func raiseStreamLimitOnce(_ connection: ConnectionContext) {
        let first = connection.storage.update(APNsAuthorizer.storageKey, default: APNsConnectionAuth()) { state -> Bool in
            defer { state.authenticated = true }
            return !state.authenticated
        }
        if first { connection.updateSettings(HTTP2Settings(maxConcurrentStreams: authenticatedStreamLimit)) }
    }
}
