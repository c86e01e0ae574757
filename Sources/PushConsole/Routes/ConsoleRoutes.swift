import Foundation
import PushAuth
import PushCore
import PushGateway
import PushHTTP
import PushSend

/// The console's routes on the gateway's Google host: the page and its script and style,
/// and the JSON API under `/console/api` (docs/console.md).
extension Console {
    public func register(on router: inout Router) {
        let page = ConsoleAssets.page, script = ConsoleAssets.script, style = ConsoleAssets.style
        let access = ConsoleAccessCheck(allowRemote: configuration.allowRemote, access: configuration.access)
        func route(_ method: String, _ path: String, _ handler: @escaping @Sendable (ServerRequest) throws -> HandlerReply) {
            router.add(method, path, through: access) { request, _ in try handler(request) }
        }
        route("GET", "/console") { _ in .now(Self.asset(page, "text/html; charset=utf-8")) }
        route("GET", "/console/") { _ in .now(Self.asset(page, "text/html; charset=utf-8")) }
        route("GET", "/console/app.js") { _ in .now(Self.asset(script, "text/javascript; charset=utf-8")) }
        route("GET", "/console/app.css") { _ in .now(Self.asset(style, "text/css; charset=utf-8")) }
        route("GET", "/console/api/status") { _ in .now(self.status()) }
        route("GET", "/console/api/pushes") { request in .now(self.pushes(request)) }
        route("GET", "/console/api/pushes/{id}") { request in .now(self.detail(request)) }
        route("GET", "/console/api/images/{messageID}") { request in .now(self.image(request)) }
        route("GET", "/console/api/events") { request in self.events(request) }
        route("GET", "/console/api/devices") { _ in .now(self.devices()) }
        route("POST", "/console/api/validate") { request in .now(Self.validate(request)) }
        route("POST", "/console/api/send") { request in self.send(request) }
        route("GET", "/console/api/metrics") { _ in .later { self.metricsAnswer() } }
        // The relay's console (`relay --console`): the send form posts through the native API's own path.
        route("GET", "/console/api/relay") { _ in .now(self.relayOverview()) }
        route("POST", "/console/api/relay/apps/{app}/pushes") { request in .later { await self.relayPush(request) } }
        route("GET", "/console/api/relay/devices") { request in .later { await self.relayDevices(request) } }
        route("GET", "/console/api/relay/metrics") { _ in .later { await self.relayMetrics() } }
    }

    // MARK: handlers

    private func status() -> ServerResponse {
        let sender = attachedSender
        return Self.json(200, ConsoleAPI.Status(pushes: log.count, latestID: log.latest, capacity: log.capacity,
                                                canSendAPNs: sender?.apns != nil, canSendFCM: sender?.fcm != nil, targets: attachedTargets,
                                                hasPhone: attachedNotebook != nil, hasMetrics: attachedMetrics != nil,
                                                pageSize: configuration.pageSize, relay: attachedRelay != nil))
    }

    private func pushes(_ request: ServerRequest) -> ServerResponse {
        let q = QueryItems(request.query)
        do {
            let limit = try q.int("limit", range: 1...1_000) ?? configuration.pageSize
            let before = try q.int64("before", range: 1...Int64.max)
            let filter = try Self.filter(q)
            let page = log.page(before: before, limit: limit, filter: filter)
            return Self.json(200, ConsoleAPI.Page(pushes: page.pushes.map(ConsoleAPI.Summary.init), total: page.total,
                                                  latestID: page.latestID, nextBefore: page.nextBefore))
        } catch { return error.response }
    }

    private func detail(_ request: ServerRequest) -> ServerResponse {
        guard let push = loggedPush(request)?.materialized else { return Self.notFound(request) }
        let validation = Self.validator(for: push).validate(bytes: Array(push.payload.utf8),
                                                            as: push.platform == .apns ? .apns : .fcm)
        let device = push.messageID.flatMap { attachedNotebook?.notification(messageID: $0) }
        // An FCM request names its registration token in the body: the page gets it shortened,
        // as everywhere else (the findings point by JSON pointer, which this does not move).
        let shown = push.target.map { push.payload.replacingOccurrences(of: $0, with: Redact.token($0)) } ?? push.payload
        return Self.json(200, ConsoleAPI.Detail(push: ConsoleAPI.Summary(push), headers: push.headers, payload: shown,
                                                validation: ConsoleAPI.Validation(validation), answer: Self.answer(push),
                                                device: device))
    }

    /// The image the virtual iPhone's extension attached to the push with this apns-id / FCM name,
    /// or the picture the Android SDK showed.
    private func image(_ request: ServerRequest) -> ServerResponse {
        // FCM names carry slashes, which the page percent-encodes into one path segment.
        let id = request.pathParameters["messageID"].map { $0.removingPercentEncoding ?? $0 } ?? ""
        let run = attachedNotebook?.notification(messageID: id)
        let file: (path: String, type: String)?
        if let attachment = run?.report?.notification?.attachments.first {
            file = (run?.thumbnailPath ?? attachment.path, attachment.type.rawValue)
        } else if let path = run?.thumbnailPath, let format = run?.android?.report.notification?.image?.format {
            file = (path, format)
        } else {
            file = nil
        }
        guard let file, let bytes = FileManager.default.contents(atPath: file.path) else {
            return Self.refusal(404, field: "/messageID", "no image attached to push \(id) on a virtual device",
                                fix: "open a push whose image the iPhone's extension attached or the Android SDK showed")
        }
        return ServerResponse(status: 200, headers: ["content-type": "image/\(file.type)", "cache-control": "max-age=3600"],
                              body: Array(bytes))
    }

    /// The live stream: server-sent events, one `pushes` event per batch. Each answer carries the
    /// pushes after `Last-Event-ID` (or `?after=`) as soon as there are any, then ends; the
    /// browser's EventSource reconnects after `retry` ms with the last id, so a busy gateway is
    /// streamed in batches and an idle one costs one waiting request. The first request (no
    /// `Last-Event-ID` yet) is answered at once, so the page knows the stream is up.
    private func events(_ request: ServerRequest) -> HandlerReply {
        let q = QueryItems(request.query)
        let after: Int64
        let lastEventID = request.headers["last-event-id"]
        do {
            after = try lastEventID.map { raw in
                guard let v = Int64(raw), v >= 0 else {
                    throw ConsoleInputError(field: "header last-event-id", error: "'\(raw)' is not a push id", fix: "send a whole number, or no header")
                }
                return v
            } ?? q.int64("after", range: 0...Int64.max) ?? log.latest
        } catch { return .now(error.response) }
        let log = log, limit = configuration.eventBatchLimit, wait = configuration.eventWait
        return .later {
            if lastEventID != nil { await log.waitForPushes(after: after, timeout: wait) }
            let batch = log.pushes(after: after, limit: limit)
            var body = Array("retry: 200\n".utf8)
            if let last = batch.last {
                body += Array("id: \(last.id)\nevent: pushes\ndata: ".utf8)
                body += ConsoleAPI.encodeStream(batch)
                body += Array("\n\n".utf8)
            } else {
                // An id with no data only sets the id the browser sends back when it reconnects.
                body += Array("id: \(after)\n: no new pushes\n\n".utf8)
            }
            return ServerResponse(status: 200, headers: ["content-type": "text/event-stream", "cache-control": "no-store"], body: body)
        }
    }

    private func devices() -> ServerResponse {
        guard let notebook = attachedNotebook else { return Self.json(200, ConsoleAPI.Devices(devices: [])) }
        let runs = notebook.notifications(limit: 200)
        var devices = notebook.registered
        // A push for a device of the gateway's registry (`--devices`) runs on the phone under that name.
        for r in runs where !devices.contains(where: { $0.name == r.device }) {
            devices.append(DeviceNotebook.Device(name: r.device, platform: devices.first?.platform ?? "ios", app: r.app,
                                                 sdkMode: devices.first?.sdkMode ?? ""))
        }
        return Self.json(200, ConsoleAPI.Devices(devices: devices.map { d in
            ConsoleAPI.Devices.Device(name: d.name, platform: d.platform, app: d.app, sdkMode: d.sdkMode,
                                      notifications: runs.filter { $0.device == d.name })
        }))
    }

    static func validate(_ request: ServerRequest) -> ServerResponse {
        let form: ConsoleAPI.ValidateRequest
        do { form = try JSONDecoder().decode(ConsoleAPI.ValidateRequest.self, from: Data(request.body)) } catch {
            return refusal(400, field: "/payload", "the body is not {\"payload\": \"<JSON text>\", …}: \(error)",
                           fix: "POST a JSON object whose \"payload\" is the payload as a string")
        }
        var format: PayloadFormat?
        if let raw = form.format, raw != "auto" {
            guard let f = PayloadFormat(rawValue: raw) else {
                return refusal(400, field: "/format", "'\(raw)' is not a payload format",
                               fix: "use auto or one of " + PayloadFormat.allCases.map(\.rawValue).joined(separator: ", "))
            }
            format = f
        }
        let context = APNsRequest(pushType: form.pushType.flatMap { $0.isEmpty ? nil : $0 },
                                  priority: form.priority.flatMap { $0.isEmpty ? nil : $0 },
                                  topic: form.topic.flatMap { $0.isEmpty ? nil : $0 },
                                  deviceToken: form.token ?? "")
        let report = Validator(options: ValidationOptions(apns: context)).validate(bytes: Array(form.payload.utf8), as: format)
        return json(200, ConsoleAPI.Validation(report))
    }

    private func send(_ request: ServerRequest) -> HandlerReply {
        let form: SendFormRequest
        do { form = try JSONDecoder().decode(SendFormRequest.self, from: Data(request.body)) } catch {
            return .now(Self.refusal(400, field: "/payload", "the body is not a send form: \(error)",
                                     fix: "POST {\"platform\": \"apns\", \"token\": …, \"payload\": \"<JSON text>\"}"))
        }
        let targetID = form.target.flatMap { $0.isEmpty ? nil : $0 } ?? "lab"
        guard let sender = attachedSender(id: targetID) else {
            if targetID == "lab" {
                return .now(Self.refusal(503, field: nil, "this console cannot send yet", fix: "wait until pushlab serve printed its URLs"))
            }
            let known = attachedTargets.map(\.id)
            return .now(Self.refusal(400, field: "/target", "this console has no send target '\(targetID)'",
                                     fix: known.isEmpty ? "send to this lab: leave target out" : "use one of " + known.joined(separator: ", ")))
        }
        let log = log
        return .later {
            do {
                let report = try await sender.send(form)
                let host = form.platform == "fcm" ? sender.target.fcmURL : sender.target.apnsURL
                // The lab's gateway logs its own pushes; a push sent elsewhere is logged here.
                if sender.target.id != "lab" { log.append(Self.logged(form, report: report, sender: sender.target, host: host)) }
                return Self.json(200, ConsoleAPI.SendAnswer(report, host: host))
            } catch {
                return error.response
            }
        }
    }

    /// The log's row for a form push that went to a server outside the lab.
    static func logged(_ form: SendFormRequest, report: DeliveryReport, sender: ConsoleSender.Target, host: String?) -> LoggedPush {
        let fcm = form.platform == "fcm"
        var headers = ["host": host ?? "", "console-target": sender.label]
        if !fcm {
            headers[APNsHeader.topic] = form.topic.flatMap { $0.isEmpty ? nil : $0 } ?? sender.topic
            headers[APNsHeader.pushType] = form.pushType.flatMap { $0.isEmpty ? nil : $0 }
            headers[APNsHeader.priority] = form.priority.map(String.init)
        }
        let deliveryID = (try? JSONDocument.parse(Array(form.payload.utf8)).root)?[CIOPush.deliveryIDKey]?.stringValue
        return LoggedPush(receivedAt: Date(), source: .console, platform: fcm ? .fcm : .apns,
                          app: fcm ? sender.project : headers[APNsHeader.topic], target: report.target, device: nil,
                          pushType: fcm ? nil : headers[APNsHeader.pushType], status: report.status ?? 0,
                          reason: report.outcome == .accepted ? nil : (report.reason ?? report.detail), messageID: report.id,
                          uniqueID: nil, deliveryID: deliveryID, headers: headers, payload: form.payload)
    }

    private func metricsAnswer() -> ServerResponse {
        guard let metrics = attachedMetrics else {
            return Self.json(200, ConsoleAPI.Metrics(report: nil, simulateChart: configuration.simulateChart,
                                                     note: "no collector is attached to this console"))
        }
        do {
            return Self.json(200, ConsoleAPI.Metrics(report: try metrics(), simulateChart: configuration.simulateChart, note: nil))
        } catch {
            return Self.refusal(500, field: nil, "the collector's report failed: \(error)", fix: "check the collector database")
        }
    }

    // MARK: helpers

    private func loggedPush(_ request: ServerRequest) -> LoggedPush? {
        request.pathParameters["id"].flatMap { Int64($0) }.flatMap { log.push(id: $0) }
    }

    private static func notFound(_ request: ServerRequest) -> ServerResponse {
        refusal(404, field: "/id", "no push \(request.pathParameters["id"] ?? "") in the console's log",
                fix: "use an id from GET /console/api/pushes (the log keeps the newest pushes only)")
    }

    static func filter(_ q: QueryItems) throws(ConsoleInputError) -> LogFilter {
        var platform: LoggedPush.Platform?
        if let raw = q["platform"], !raw.isEmpty {
            guard let p = LoggedPush.Platform(rawValue: raw) else {
                throw ConsoleInputError(field: "platform", error: "'\(raw)' is not a platform", fix: "use apns or fcm")
            }
            platform = p
        }
        var outcome: LogFilter.Outcome?
        if let raw = q["outcome"], !raw.isEmpty {
            guard let o = LogFilter.Outcome(rawValue: raw) else {
                throw ConsoleInputError(field: "outcome", error: "'\(raw)' is not an outcome", fix: "use accepted or rejected")
            }
            outcome = o
        }
        return LogFilter(query: q["q"], platform: platform, outcome: outcome)
    }

    /// The validator set up as the gateway saw the push: its apns-* headers and token (the
    /// authorization header is redacted in the record, so it is left out).
    static func validator(for push: LoggedPush) -> Validator {
        let headers = push.headers.filter { $0.key != APNsHeader.authorization }.map { (name: $0.key, value: $0.value) }
        return Validator(options: ValidationOptions(apns: APNsRequest(headers: headers, deviceToken: push.target ?? "")))
    }

    /// The answer the gateway gave, rebuilt from the record: status, ids and body.
    static func answer(_ push: LoggedPush) -> ConsoleAPI.Answer {
        var headers: [String: String] = [:]
        let body: String
        switch push.platform {
        case .apns:
            headers[APNsHeader.id] = push.messageID
            headers[APNsHeader.uniqueID] = push.uniqueID
            body = push.reason.map { #"{"reason":"\#($0)"}"# } ?? ""
        case .fcm:
            body = push.reason.map { #"{"error":{"code":\#(push.status),"details":[{"errorCode":"\#($0)"}]}}"# }
                ?? #"{"name":"\#(push.messageID ?? "")"}"#
        }
        return ConsoleAPI.Answer(status: push.status, headers: headers, body: body)
    }

    static func json<T: Encodable>(_ status: Int, _ value: T) -> ServerResponse {
        ServerResponse(status: status, headers: ["content-type": "application/json", "cache-control": "no-store"],
                       body: ConsoleAPI.encode(value))
    }

    static func refusal(_ status: Int, field: String?, _ error: String, fix: String) -> ServerResponse {
        json(status, ConsoleInputError(field: field ?? "", error: error, fix: fix))
    }

    private static func asset(_ text: String, _ type: String) -> ServerResponse {
        ServerResponse(status: 200, headers: ["content-type": type, "cache-control": "no-cache",
                                              "content-security-policy": "default-src 'self'; img-src 'self' data:; style-src 'self'"],
                       body: Array(text.utf8))
    }
}

extension ConsoleInputError {
    var response: ServerResponse { Console.json(400, self) }
}

extension Error {
    /// A 400 naming the field, for the API's `throws` helpers.
    var response: ServerResponse {
        (self as? ConsoleInputError)?.response ?? Console.refusal(400, field: nil, "\(self)", fix: "check the request")
    }
}
