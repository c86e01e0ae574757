import Foundation
import PushCore
import PushHTTP

/// `POST /v1/projects/{project}/messages:send` — FCM HTTP v1 (docs/specs/fcm.md). Checks in order:
/// bearer access token (401 UNAUTHENTICATED), scope and project (403 PERMISSION_DENIED), body
/// JSON and the FCM rules PushCore's validator marks as enforced by FCM (400 INVALID_ARGUMENT
/// with field violations, among them the FID and token shapes: an APNs token is
/// `fcm.token.apns-token`), the registration token or installation ID (unknown or unregistered →
/// 404 UNREGISTERED; another project's → 403 SENDER_ID_MISMATCH). Errors use
/// the Google RPC shape with FcmError details (`FCMError.json`).
struct FCMSendRoute: Sendable {
    let tokens: AccessTokenStore
    let devices: DeviceRegistry
    let records: PushRecordStore
    let sink: (any PushDeliverySink)?
    let time: TimeSource
    let ids: RandomUUIDSource
    static let messagingScopes: Set<String> = ["https://www.googleapis.com/auth/firebase.messaging",
                                               "https://www.googleapis.com/auth/cloud-platform"]

    /// What the checks learned of a message, for its record and its delivery.
    private struct Outcome {
        var target: String?
        var device: EmulatedDevice?
        var deliveryID: String?
        /// The 200 answer, `{"name":"<message name>"}`: the name is written once, into it, and
        /// the record takes it from there (`FCMSendRoute.name(in:)`).
        var answer: [UInt8]?
        var validateOnly = false
        var liveActivityToken: String?
        var delivered: [UInt8]?
    }

    /// The route itself (fault plans run before it, as `GatewayFaults`).
    func handle(_ request: ServerRequest) -> HandlerReply {
        let now = time.now
        let project = request.pathParameters["project"] ?? ""
        var outcome = Outcome()
        let verdict = authorize(request, project: project, now: now) ?? accept(request, project: project, now: now, into: &outcome)
        if !outcome.validateOnly || verdict != nil {
            // The header map (authorization redacted) and the payload text are taken from the
            // request when the record is packed, not built here (PushRecordStore); so is the
            // message name, from the answer's bytes.
            records.record(PushRecord(receivedAt: now, service: .fcm, token: outcome.target, device: outcome.device?.name, topic: project,
                                      pushType: nil, messageID: nil, status: verdict?.httpStatus ?? 200,
                                      reason: verdict?.reasonName, deliveryID: outcome.deliveryID, headers: [:], payload: ""),
                           rawHeaders: request.headers, body: request.body, messageName: outcome.answer.map(Self.name(in:)))
        }
        if let verdict { return .now(render(verdict)) }
        let answer = outcome.answer ?? Self.answer(name: "")
        if let delivered = outcome.delivered {
            let push = AcceptedPush(service: .fcm, device: outcome.device, payload: delivered, messageID: String(decoding: Self.name(in: answer), as: UTF8.self),
                                    deliveryID: outcome.deliveryID, receivedAt: now, token: outcome.liveActivityToken)
            if outcome.device?.platform == .android { sink?.deliverToAndroid(push) } else { sink?.deliver(push) }
        }
        return .now(ServerResponse(status: 200, headers: Self.answerHeaders, body: answer))
    }

    /// The 200 answer's headers, built once (`ServerResponse.json`'s content type).
    private static let answerHeaders: HTTPHeaders = ServerResponse.json(200, "").headers

    /// The 200 answer's text around the message name.
    private static let answerOpen: StaticString = #"{"name":""#, answerClose: StaticString = #""}"#

    /// `{"name":"<message name>"}`, written straight into the body: the same bytes as the
    /// interpolated text it replaces, without the intermediate string and its copy.
    static func answer(name: String) -> [UInt8] {
        var name = name
        return name.withUTF8 { text in
            answer(nameCapacity: text.count) { out in
                var w = ByteWriter(base: out)
                w.put(text)
                return w.offset
            }
        }
    }

    /// The 200 answer with the emulator's message name (`messageName`) written into it.
    static func answer(project: String, micros: Int64, random: UInt64) -> [UInt8] {
        answer(nameCapacity: project.utf8.count + messageNameExtraCapacity) { writeMessageName(project: project, micros: micros, random: random, at: $0) }
    }

    /// The answer around a name that `write` puts at the pointer it gets (at most
    /// `nameCapacity` bytes), returning how many it wrote.
    private static func answer(nameCapacity: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: answerOpen.utf8CodeUnitCount + nameCapacity + answerClose.utf8CodeUnitCount) { out, count in
            var w = ByteWriter(base: out.baseAddress!)
            w.put(answerOpen)
            w.offset += write(out.baseAddress! + w.offset)
            w.put(answerClose)
            count = w.offset
        }
    }

    /// The message name inside an answer (`answer(name:)`, `answer(project:micros:random:)`).
    static func name(in answer: [UInt8]) -> ArraySlice<UInt8> {
        answer[answerOpen.utf8CodeUnitCount..<answer.count - answerClose.utf8CodeUnitCount]
    }

    /// The bearer access token: present (401), known and unexpired (401), with a messaging scope
    /// (403) for this project (403).
    private func authorize(_ request: ServerRequest, project: String, now: Date) -> FCMError? {
        guard let header = request.headers["authorization"], let credential = grant(header, connection: request.connection) else {
            return FCMError(httpStatus: 401, status: "UNAUTHENTICATED",
                            message: "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential.")
        }
        guard let known = credential, known.grant.expiresAt > now else {
            return FCMError(httpStatus: 401, status: "UNAUTHENTICATED",
                            message: "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.")
        }
        guard known.allowsMessaging else {
            return FCMError(httpStatus: 403, status: "PERMISSION_DENIED", message: "Request had insufficient authentication scopes.")
        }
        guard known.grant.projectID == project else {
            return FCMError(httpStatus: 403, status: "PERMISSION_DENIED",
                            message: "Permission 'cloudmessaging.messages.create' denied on resource '//cloudresourcemanager.googleapis.com/projects/\(project)' (or it may not exist).")
        }
        return nil
    }

    /// The grant of the access token in `header` (`Bearer <token>`): nil when the header is not a
    /// Bearer credential, `.some(nil)` when its token is unknown. Issued tokens never change,
    /// so the connection keeps the last header it looked up with its grant and scope verdict:
    /// the next request with the same header (the HTTP/2 session hands the route the same
    /// string, so the comparison is a pointer check) skips the Bearer parse (that header parsed
    /// before), the copy, the shared store's lock and the scope set. Expiry and project are
    /// still checked on every request.
    private func grant(_ header: String, connection: ConnectionContext) -> FCMConnectionGrant?? {
        connection.storage.update(Self.storageKey, default: FCMConnectionGrant?.none) { cached -> FCMConnectionGrant?? in
            if let cached, cached.header == header { return .some(cached) }
            guard let token = BearerAuthorization.token(in: header) else { return nil }
            guard let grant = tokens.lookup(String(token)) else { return .some(nil) }
            cached = FCMConnectionGrant(header: header, grant: grant, allowsMessaging: !grant.scopes.isDisjoint(with: Self.messagingScopes))
            return .some(cached)
        }
    }

    static let storageKey = "fcm.grant"

    /// The validator's options but the body size, built once: building them per request built
    /// an empty `APNsRequest` (the APNs options) the FCM check never reads.
    private static let validationOptions = ValidationOptions(scope: .serviceEnforced)

    /// The body as a send request: JSON, the FCM rules FCM enforces (field violations), exactly one target.
    /// The common body is checked in one pass (`FCMCheckedSend`), its message typed later only if
    /// a device or sink reads it; any other body (or one with a finding) takes the full path,
    /// which names the field violations and types the request.
    private func parse(_ body: [UInt8]) -> Result<ParsedSend, FCMError> {
        if let send = FCMCheckedSend(onePass: body) { return .success(.checked(send)) }
        let document: JSONDocument
        do { document = try JSONDocument.parse(body) } catch {
            return .failure(FCMError(.invalidArgument, message: "Invalid JSON payload received. \(error.message)"))
        }
        var options = Self.validationOptions
        options.receivedByteCount = body.count
        let report = Validator(options: options).validate(document, as: .fcm)
        let violations = report.findings.filter { $0.severity == .error }.map {
            FCMFieldViolation(field: dotted($0.pointer), description: $0.message)
        }
        if !violations.isEmpty {
            return .failure(FCMError(.invalidArgument, message: "Request contains an invalid argument.", fieldViolations: violations))
        }
        guard let send = FCMSendRequest(json: document.root) else {
            return .failure(FCMError(.invalidArgument, message: "Request contains an invalid argument.",
                                     fieldViolations: [FCMFieldViolation(field: "message", description: "Exactly one of fid, token, topic or condition must be set")]))
        }
        return .success(.typed(send))
    }

    /// A send request as `parse` leaves it: checked by the one pass, or typed by the full path.
    /// The typed request is boxed (`indirect`): inline, its 216 bytes made every `ParsedSend`
    /// that size, copied whole on each move of the common, checked one.
    private enum ParsedSend {
        case checked(FCMCheckedSend)
        indirect case typed(FCMSendRequest)

        var validateOnly: Bool? {
            switch self { case .checked(let send): send.validateOnly; case .typed(let send): send.validateOnly }
        }
        var target: FCMTarget {
            switch self { case .checked(let send): send.target; case .typed(let send): send.message.target }
        }
        /// The full path's message; nil for a checked one (the one pass's subset has no apns section,
        /// so no live activity token or delivery id there).
        var typedMessage: FCMMessage? {
            if case .typed(let send) = self { return send.message }
            return nil
        }
        /// The message typed: a checked body's by the one pass again, with its texts (it
        /// accepts every body the check does: `FCMCheckedSendTests`).
        func message(body: [UInt8]) -> FCMMessage {
            switch self {
            case .checked: FCMSendRequest.onePass(body)!.message
            case .typed(let send): send.message
            }
        }
    }

    /// Everything after the access token: the message, its target device, its id and what the
    /// device receives. Fills `o` as far as the checks got.
    private func accept(_ request: ServerRequest, project: String, now: Date, into o: inout Outcome) -> FCMError? {
        let send: ParsedSend
        switch parse(request.body) {
        case .failure(let error): return error
        case .success(let parsed): send = parsed
        }
        o.validateOnly = send.validateOnly ?? false
        if let message = send.typedMessage {
            o.liveActivityToken = message.liveActivityToken
            o.deliveryID = message.apnsPayload?[CIOPush.deliveryIDKey]?.stringValue
        }
        let target = send.target
        o.target = target.isDevice ? target.value : target.fieldName + ":" + target.value
        if let error = device(for: target, project: project, now: now, into: &o) { return error }
        let answer = o.validateOnly ? Self.answer(name: "projects/\(project)/messages/fake_message_id")
            : Self.answer(project: project, micros: Int64(now.timeIntervalSince1970 * 1_000_000), random: ids.nextUInt64())
        o.answer = answer
        if o.device?.platform == .android {
            // The Android SDK reads its delivery id from `data` (docs/specs/android-side.md §2).
            o.deliveryID = send.message(body: request.body).data.first { $0.key == AndroidSDKContract.deliveryIDKey }?.value
            if !o.validateOnly { o.delivered = request.body }
        } else if !o.validateOnly, sink?.wantsPush(device: o.device, token: o.liveActivityToken) == true {
            // Built only for a sink that takes it: the JSON payload costs more than the rest of the answer.
            let name = Self.name(in: answer)
            o.delivered = send.message(body: request.body).apnsDeliveryPayload(messageID: String(decoding: name[(name.lastIndex(of: UInt8(ascii: "/"))! + 1)...], as: UTF8.self))
        }
        return nil
    }

    /// The emulator's message name, `projects/<project>/messages/0:<µs since 1970>%<random, hex>`
    /// (docs/specs/fcm.md "Send": `projects/<p>/messages/<id>`), as a string; the route writes the
    /// same bytes straight into its answer (`answer(project:micros:random:)`).
    static func messageName(project: String, micros: Int64, random: UInt64) -> String {
        String(unsafeUninitializedCapacity: project.utf8.count + messageNameExtraCapacity) {
            writeMessageName(project: project, micros: micros, random: random, at: $0.baseAddress!)
        }
    }

    /// The bytes a message name takes beyond its project's: the fixed text, a sign, 19 decimal
    /// and 16 hex digits.
    private static let messageNameExtraCapacity = 64

    /// Writes the message name at `out` (room for the project and `messageNameExtraCapacity`
    /// bytes) and returns its length. The digits divide by the constants 10 and 16 (a multiply
    /// and a shift): a divide by a radix passed in was a hardware division per digit.
    private static func writeMessageName(project: String, micros: Int64, random: UInt64, at out: UnsafeMutablePointer<UInt8>) -> Int {
        var w = ByteWriter(base: out)
        w.put("projects/")
        var project = project
        project.withUTF8 { w.put($0) }
        w.put("/messages/0:")
        if micros < 0 { w.put("-") }
        var start = w.offset
        var v = micros.magnitude
        repeat {
            w.byte(UInt8(ascii: "0") + UInt8(v % 10))
            v /= 10
        } while v > 0
        w.reverse(from: start)
        w.put("%")
        start = w.offset
        var r = random
        repeat {
            let d = UInt8(r & 0xF)
            w.byte(d < 10 ? UInt8(ascii: "0") + d : UInt8(ascii: "a") + d - 10)
            r >>= 4
        } while r > 0
        w.reverse(from: start)
        return w.offset
    }

    /// The registered device a token or FID names (topics and conditions reach the quick-start
    /// device): unknown or unregistered → 404 UNREGISTERED (an FID no app instance registered
    /// too, docs/specs/fcm.md "`fid` beside `token`"), another project's → 403 SENDER_ID_MISMATCH.
    private func device(for target: FCMTarget, project: String, now: Date, into o: inout Outcome) -> FCMError? {
        let lookup: DeviceLookup
        switch target {
        case .token(let token): lookup = devices.lookup(fcmToken: token)
        case .fid(let fid): lookup = devices.lookup(fid: fid)
        case .topic, .condition: return nil
        }
        switch lookup {
        case .unknown:
            return FCMError(.unregistered, message: "Requested entity was not found.")
        case .quickStart:
            if project != devices.quickStartProject { return FCMError(.senderIdMismatch, message: "SenderId mismatch") }
        case .known(let d):
            o.device = d
            if let p = d.firebaseProject, p != project { return FCMError(.senderIdMismatch, message: "SenderId mismatch") }
            if let since = d.unregisteredSince, since <= now { return FCMError(.unregistered, message: "Requested entity was not found.") }
        }
        return nil
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

/// The access token a connection last presented and its grant (`FCMSendRoute.grant`).
struct FCMConnectionGrant: Sendable {
    var header: String
    var grant: IssuedAccessToken
    /// The grant has a messaging scope (`FCMSendRoute.messagingScopes`).
    var allowsMessaging: Bool
}
