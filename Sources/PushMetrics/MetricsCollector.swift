import Foundation
import Synchronization
import PushCore
import PushHTTP

/// When the collector answers an accepted request.
public enum CollectorAcknowledgement: String, Sendable, CaseIterable {
    /// As soon as the metrics are handed to the writer (answered on the event loop, `.now`);
    /// they are committed within milliseconds, so a crash in those milliseconds loses metrics
    /// the client was told were stored. For load tests (benchmarks/results/collector.md compares
    /// the two).
    case queued
    /// Only after the transaction holding them committed (answered via `.later`): an answered
    /// metric survives `kill -9`. The default.
    case committed
}

/// Something the collector did, for live console lines and tests.
public enum CollectorEvent: Sendable {
    case accepted(route: CIOMetricRoute, metrics: [ReportedMetric], duplicates: [Bool], userAgent: String?)
    case rejected(route: CIOMetricRoute, MetricRejection)
    case faulted(route: CIOMetricRoute, FaultDecision)
    case storeFailed(String)
}

/// The Customer.io-compatible metrics collector: the three routes of docs/specs/device-side.md §3 on any
/// `Router` (so `pushlab serve` mounts them beside the gateway's), checks in a fixed order —
/// fault plan, credentials, body — and every request recorded in the `MetricStore`.
public final class MetricsCollector: Sendable {
    public let configuration: CollectorConfiguration
    public let store: MetricStore
    private let writer: MetricWriter
    private let injector: FaultInjector
    private let time: any TimeSource
    private let observer: (@Sendable (CollectorEvent) -> Void)?
    /// The running counts, one atomic each: every request counts on its loop thread and again on
    /// the writer's (committed answers), and a lock shared by the loops and the writer was
    /// contended on every request.
    private let tally = Tally()
    /// The modelled Retainza ingest API (docs/retainza.md), mounted beside the metric routes.
    public let retainza: RetainzaIngest

    public init(configuration: CollectorConfiguration, store: MetricStore, timeSource: any TimeSource = SystemTimeSource(),
                observer: (@Sendable (CollectorEvent) -> Void)? = nil) throws {
        self.configuration = configuration
        self.store = store
        self.time = timeSource
        self.observer = observer
        injector = FaultInjector(plan: configuration.faultPlan)
        retainza = RetainzaIngest(store: try RetainzaIngestStore(database: store.database, wrote: { [store] in store.checkpointSoon(afterWriting: $0) }), timeSource: timeSource)
        writer = try MetricWriter(store: store, maxPending: configuration.maxPendingWrites,
                                  onError: { error in observer?(.storeFailed("\(error)")) })
    }

    /// Adds `POST /v1/track`, `POST /v1/b` and `POST /push/events` to `router`, and the
    /// modelled Retainza routes under `/retainza/v1`.
    public func register(on router: inout Router) {
        for route in CIOMetricRoute.allCases {
            router.add("POST", route.path) { [self] request in handle(request, route: route) }
        }
        retainza.register(on: &router)
    }

    /// A router with only the collector's routes.
    public func makeRouter() -> Router {
        var router = Router()
        register(on: &router)
        return router
    }

    /// Commits every metric received so far (call before reading the store).
    public func flush() { writer.flush() }

    /// Flushes, then builds the report from this collector's store (see `MetricsReport.load`).
    public func report(gatewayDatabasePath: String? = nil, recoveryThresholdSeconds: Double = 60) throws -> MetricsReport {
        flush()
        return try MetricsReport.load(store: store, gatewayDatabasePath: gatewayDatabasePath,
                                      recoveryThresholdSeconds: recoveryThresholdSeconds, generatedAt: time.now)
    }

    /// As `report(gatewayDatabasePath:)`, with the accepted pushes given (a gateway that keeps
    /// its records in memory).
    public func report(sent: [SentPush], recoveryThresholdSeconds: Double = 60) throws -> MetricsReport {
        flush()
        return MetricsReport.build(metrics: try store.metrics(), requests: try store.requestOutcomes(), sent: sent,
                                   recoveryThresholdSeconds: recoveryThresholdSeconds, generatedAt: time.now)
    }

    /// Each count read on its own (a request in flight may show in `requests` before `accepted`).
    public var counters: CollectorCounters { tally.snapshot }

    /// Commits that failed and were (or will be) retried; 0 in a healthy run.
    public var writerFailures: Int { writer.failedAttempts }

    /// Handles one request to `route`. Quick: answers `.now` unless a fault delays it or the
    /// acknowledgement waits for the commit.
    public func handle(_ request: ServerRequest, route: CIOMetricRoute) -> HandlerReply {
        let receivedAt = time.now
        let decision = injector.decide(method: request.method, path: request.path, connectionID: request.connection.id)
        if decision.isClean { return answer(request, route: route, receivedAt: receivedAt) }
        // The request reaches the collector late: it is stored (or refused) after the delay.
        var fault = ServerFault(delay: decision.delay, goAwayDebugData: decision.goAway ? [] : nil, handling: .afterWait)
        let holds = decision.holds
        if !holds.isEmpty { fault.hold = { for hold in holds { await hold.wait() } } }
        if decision.outcome != nil || decision.delay > .zero {
            observer?(.faulted(route: route, decision))
            tally.faulted.add(1, ordering: .relaxed)
        }
        switch decision.outcome {
        case .drop(let scope)?:
            var template = record(request, route: route, receivedAt: receivedAt, status: 0)
            template.error = "fault:drop-\(scope.rawValue)"
            writer.submit(template, metrics: [])
            fault.outcome = scope == .connection ? .closeConnection : .resetStream
        case .status(let code, let retryAfter, let reason)?:
            var template = record(request, route: route, receivedAt: receivedAt, status: code)
            template.error = "fault:status-\(code)"
            let writer = self.writer, record = template
            let response = faultResponse(code, retryAfter: retryAfter, reason: reason)
            fault.outcome = .answer {
                writer.submit(record, metrics: [])
                return response
            }
        case .stall(let hold)?:
            fault.outcome = .hold(hold)
        case nil:
            break
        }
        return fault.reply(to: request) { [self] in answer(request, route: route, receivedAt: receivedAt) }
    }

    /// Credentials, body, store: the normal path.
    private func answer(_ request: ServerRequest, route: CIOMetricRoute, receivedAt: Date) -> HandlerReply {
        var template = record(request, route: route, receivedAt: receivedAt, status: 200)
        do {
            let parsed = try check(request, route: route)
            template.ignoredEvents = parsed.ignoredEvents
            let userAgent = template.userAgent
            switch configuration.acknowledgement {
            case .queued:
                let duplicates = writer.submit(template, metrics: parsed.metrics)
                return .now(accepted(route: route, parsed, duplicates: duplicates, userAgent: userAgent))
            case .committed:
                // Answered from the writer's thread once the transaction committed, with the rest
                // of the commit's answers: no task, no pool thread between the event loop, the
                // writer and the answer.
                let writer = self.writer, record = template
                return .callback { [self] respond in
                    writer.submit(record, metrics: parsed.metrics) { [self] duplicates, failure, answers in
                        if failure != nil {
                            answers.add(.json(503, jsonObjectText(["error": "store_unavailable", "reason": "could not commit the metrics; retry"])), for: respond)
                        } else {
                            answers.add(accepted(route: route, parsed, duplicates: duplicates, userAgent: userAgent), for: respond)
                        }
                    }
                }
            }
        } catch {
            template.status = error.status
            template.error = error.code
            writer.submit(template, metrics: [])
            tally.rejected.add(1, ordering: .relaxed)
            observer?(.rejected(route: route, error))
            return .now(.json(error.status, error.responseBody))
        }
    }

    /// Fixed order: credentials first (401 before any body check), then the body (400).
    /// `/v1/b` may carry its key as `writeKey` in the body instead of a header.
    func check(_ request: ServerRequest, route: CIOMetricRoute) throws(MetricRejection) -> ParsedMetricRequest {
        let authorization = request.headers["authorization"]
        if route == .batch, authorization == nil || authorization?.isEmpty == true {
            let parsed: ParsedMetricRequest
            do {
                parsed = try MetricRequestParser.parse(route: route, body: request.body)
            } catch {
                throw .missingAuthorization(route: route)
            }
            guard let key = parsed.writeKey else { throw .missingAuthorization(route: route) }
            try configuration.credentials.checkCDPKey(key, route: route)
            return parsed
        }
        try checkAuthorization(authorization, route: route, connection: request.connection)
        return try MetricRequestParser.parse(route: route, body: request.body)
    }

    /// The header a connection's requests last passed with, per key family: the SDKs send the
    /// same `Authorization` on every request, and the keys are fixed for the collector's life,
    /// so a repeated header is one string comparison instead of a base64 decode.
    private struct AcceptedAuthorization: Sendable {
        var cdp: String?
        var legacy: String?

        func accepts(_ header: String, _ route: CIOMetricRoute) -> Bool {
            (route == .legacyEvents ? legacy : cdp) == header
        }
        mutating func remember(_ header: String, _ route: CIOMetricRoute) {
            if route == .legacyEvents { legacy = header } else { cdp = header }
        }
    }
    private static let acceptedAuthorizationKey = "collector.authorization"

    private func checkAuthorization(_ header: String?, route: CIOMetricRoute, connection: ConnectionContext) throws(MetricRejection) {
        let storage = connection.storage, key = Self.acceptedAuthorizationKey
        if let header, !header.isEmpty, storage.update(key, default: AcceptedAuthorization(), { $0.accepts(header, route) }) { return }
        try configuration.credentials.check(authorization: header, route: route)
        if let header { storage.update(key, default: AcceptedAuthorization()) { $0.remember(header, route) } }
    }

    private func accepted(route: CIOMetricRoute, _ parsed: ParsedMetricRequest, duplicates: [Bool], userAgent: String?) -> ServerResponse {
        let duplicateCount = duplicates.reduce(0) { $1 ? $0 + 1 : $0 }
        tally.accepted.add(1, ordering: .relaxed)
        tally.metrics.add(parsed.metrics.count, ordering: .relaxed)
        if duplicateCount > 0 { tally.duplicates.add(duplicateCount, ordering: .relaxed) }
        observer?(.accepted(route: route, metrics: parsed.metrics, duplicates: duplicates, userAgent: userAgent))
        return ServerResponse(status: 200, headers: Self.jsonHeaders,
                              body: Self.acceptedBody(stored: parsed.metrics.count, duplicates: duplicateCount, ignored: parsed.ignoredEvents))
    }

    private static let jsonHeaders: HTTPHeaders = ["content-type": "application/json"]

    /// `{"success":true,"stored":N,"duplicates":D,"ignored":I}` written straight into one buffer.
    static func acceptedBody(stored: Int, duplicates: Int, ignored: Int) -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(80)
        func text(_ text: StaticString) { body.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)) }
        func number(_ n: Int) {
            if n >= 10 { number(n / 10) }
            body.append(UInt8(ascii: "0") + UInt8(n % 10))
        }
        text(#"{"success":true,"stored":"#)
        number(stored)
        text(#","duplicates":"#)
        number(duplicates)
        text(#","ignored":"#)
        number(ignored)
        text("}")
        return body
    }

    private func faultResponse(_ status: Int, retryAfter: Int?, reason: String?) -> ServerResponse {
        var headers = HTTPHeaders()
        if let retryAfter { headers.add("retry-after", String(retryAfter)) }
        return .json(status, jsonObjectText(["error": "injected_fault", "reason": reason ?? "fault plan answered \(status)"]), headers: headers)
    }

    private func record(_ request: ServerRequest, route: CIOMetricRoute, receivedAt: Date, status: Int) -> MetricRequestRecord {
        tally.requests.add(1, ordering: .relaxed)
        return MetricRequestRecord(receivedAt: receivedAt, route: route, status: status, userAgent: request.headers["user-agent"],
                                   httpVersion: request.version.rawValue, remoteAddress: request.connection.remoteAddress,
                                   body: request.body)
    }

    private final class Tally: Sendable {
        let requests = Atomic(0), accepted = Atomic(0), rejected = Atomic(0), faulted = Atomic(0), metrics = Atomic(0), duplicates = Atomic(0)

        var snapshot: CollectorCounters {
            CollectorCounters(requests: requests.load(ordering: .relaxed), accepted: accepted.load(ordering: .relaxed),
                              rejected: rejected.load(ordering: .relaxed), faulted: faulted.load(ordering: .relaxed),
                              metrics: metrics.load(ordering: .relaxed), duplicates: duplicates.load(ordering: .relaxed))
        }
    }
}
