import Foundation
import PushCore
import PushHTTP

/// The host app's event pipeline (docs/specs/device-side.md §3): events are queued and uploaded in
/// batches — at `flushAt` (20) events queued since the last flush, or on `tick()` once
/// `flushInterval` (30 s) has passed, or on an explicit `flush()`. Outcomes by status:
/// 2xx delete, 400 delete without retry, everything else keeps the events for the next flush.
///
/// Time comes from a `TimeSource` and nothing here sleeps on its own (except the legacy retry
/// waits, which go through the injected `sleep`), so tests and the simulator drive it.
/// Used by the tap handler (`opened`) and by launch recovery (recovered `delivered` events
/// with their original timestamps, §4).
public actor EventPipeline {
    public typealias Sleep = @Sendable (TimeInterval) async -> Void

    public let configuration: EventPipelineConfiguration
    private let transport: any HTTPTransport
    private let time: any TimeSource
    private let sleep: Sleep

    // Actor-isolated state.
    private var queue: [PipelineEvent] = []
    /// Message ids of events inside a request right now, so an overlapping flush (actor
    /// reentrancy at an `await`) never sends them twice.
    private var inFlight: Set<String> = []
    private var queuedSinceFlush = 0
    private var lastFlush: Date
    /// Legacy mode: no requests before this time (after the retries ran out, §3).
    private var pausedUntil: Date?
    private var history: [UploadAttempt] = []

    public init(configuration: EventPipelineConfiguration, transport: any HTTPTransport,
                time: any TimeSource = SystemTimeSource(),
                sleep: @escaping Sleep = { seconds in try? await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1e9)) }) {
        self.configuration = configuration
        self.transport = transport
        self.time = time
        self.sleep = sleep
        self.lastFlush = time.now
    }

    /// Queues an event. Returns the flush report when this event reached the count threshold.
    @discardableResult
    public func enqueue(_ event: PipelineEvent) async -> FlushReport? {
        await enqueue([event])
    }

    /// Queues events in order (recovery queues all rows oldest first, §4).
    @discardableResult
    public func enqueue(_ events: [PipelineEvent]) async -> FlushReport? {
        queue.append(contentsOf: events)
        queuedSinceFlush += events.count
        guard queuedSinceFlush >= configuration.flushAt else { return nil }
        return await flush()
    }

    /// The timer: flushes when `flushInterval` has passed since the last flush.
    @discardableResult
    public func tick() async -> FlushReport? {
        guard time.now.timeIntervalSince(lastFlush) >= configuration.flushInterval else { return nil }
        return await flush()
    }

    /// Uploads everything queued and not already in flight.
    @discardableResult
    public func flush() async -> FlushReport {
        lastFlush = time.now
        queuedSinceFlush = 0
        let batch = queue.filter { !inFlight.contains($0.messageId) }
        guard !batch.isEmpty else { return FlushReport(attempts: [], remaining: queue.count) }
        inFlight.formUnion(batch.map(\.messageId))
        defer { inFlight.subtract(batch.map(\.messageId)) }

        var attempts: [UploadAttempt] = []
        switch configuration.mode {
        case .cdp(let url, let writeKey):
            for events in EventPipelineRequests.batches(batch, maxBytes: configuration.maxBatchBytes) {
                let request = EventPipelineRequests.batchRequest(events, url: url, writeKey: writeKey,
                                                                 sentAt: time.now, configuration: configuration)
                let outcome = await send(request)
                attempts.append(UploadAttempt(request: EventPipelineRequests.summary(request),
                                              messageIds: events.map(\.messageId), retries: 0, outcome: outcome))
            }
        case .legacy(let url, let siteID, let apiKey):
            for event in batch {
                attempts.append(await sendLegacy(event, url: url, siteID: siteID, apiKey: apiKey))
            }
        }
        let removed = Set(attempts.filter { $0.outcome.removesEvents }.flatMap(\.messageIds))
        queue.removeAll { removed.contains($0.messageId) }
        history.append(contentsOf: attempts)
        return FlushReport(attempts: attempts, remaining: queue.count)
    }

    /// Requests a flush would send now, without sending them (dry run).
    public func pendingRequests() -> [HTTPRequestSummary] {
        switch configuration.mode {
        case .cdp(let url, let writeKey):
            return EventPipelineRequests.batches(queue, maxBytes: configuration.maxBatchBytes).map {
                EventPipelineRequests.summary(EventPipelineRequests.batchRequest($0, url: url, writeKey: writeKey,
                                                                                 sentAt: time.now, configuration: configuration))
            }
        case .legacy(let url, let siteID, let apiKey):
            return queue.map {
                EventPipelineRequests.legacyRequest($0, url: url, siteID: siteID, apiKey: apiKey, configuration: configuration)
            }.map(EventPipelineRequests.summary)
        }
    }

    /// Events waiting for upload, oldest first.
    public var queuedEvents: [PipelineEvent] { queue }
    /// Every upload attempt so far, in order.
    public var attempts: [UploadAttempt] { history }

    /// Drops the queue, as when the process is killed before an upload (§4: a source of loss).
    public func dropQueue() -> Int {
        let n = queue.count
        queue.removeAll()
        queuedSinceFlush = 0
        return n
    }

    private func send(_ request: HTTPRequest) async -> UploadOutcome {
        do {
            let response = try await transport.send(request)
            return .forStatus(response.status)
        } catch {
            return .kept(.network(String(describing: error)))
        }
    }

    /// Legacy SDKs retried 5xx (and network errors) at 0.1 … 3.2 s, then paused every request
    /// for 5 minutes; 400 deleted the task (§3).
    private func sendLegacy(_ event: PipelineEvent, url: String, siteID: String, apiKey: String) async -> UploadAttempt {
        let request = EventPipelineRequests.legacyRequest(event, url: url, siteID: siteID, apiKey: apiKey,
                                                          configuration: configuration)
        let summary = EventPipelineRequests.summary(request)
        if let until = pausedUntil, time.now < until {
            return UploadAttempt(request: summary, messageIds: [event.messageId], retries: 0, outcome: .kept(.paused(until: until)))
        }
        pausedUntil = nil
        var retries = 0
        while true {
            let outcome = await send(request)
            let retryable: Bool
            switch outcome {
            case .kept(.status(let s)): retryable = s >= 500
            case .kept(.network): retryable = true
            default: retryable = false
            }
            guard retryable else {
                return UploadAttempt(request: summary, messageIds: [event.messageId], retries: retries, outcome: outcome)
            }
            guard retries < configuration.legacyRetryDelays.count else {
                pausedUntil = time.now.addingTimeInterval(configuration.legacyPause)
                return UploadAttempt(request: summary, messageIds: [event.messageId], retries: retries, outcome: outcome)
            }
            await sleep(configuration.legacyRetryDelays[retries])
            retries += 1
        }
    }
}
