import Foundation
import PushCore
import PushHTTP

/// One pending row recovered at launch.
public struct RecoveredRow: Sendable, Codable, Equatable {
    public var id: UUID
    public var deliveryID: String
    /// The row's original timestamp as sent (ISO 8601 with milliseconds, docs/specs/device-side.md §4).
    public var timestamp: String
}

/// What a cold start did with the App Group store.
public struct LaunchRecoveryReport: Sendable, Codable, Equatable {
    public enum DeletePolicy: String, Sendable, Codable {
        /// The reference SDK: rows deleted right after queueing, before any upload (§4).
        case afterQueueing = "after-queueing"
        /// pushlab's improved mode: rows deleted only after a 2xx for their batch.
        case afterAcknowledgement = "after-acknowledgement"
    }
    public var sdkMode: SDKMode
    public var store: AppGroupStoreKind
    public var storePath: String?
    public var deletePolicy: DeletePolicy
    public var recovered: [RecoveredRow]
    public var deletedAfterQueueing: Int
    public var deletedAfterAcknowledgement: Int
    /// One line per upload: status and what became of its events.
    public var uploads: [String]
    public var acknowledgedEvents: Int
    public var remainingInStore: Int
    /// Events still in the app's queue (lost if the app dies before the next flush).
    public var remainingInQueue: Int
    public var droppedByCap: Int?
    public var note: String?
}

/// The host app's cold start (issue 9 item 4): loads the pending rows oldest first and queues
/// them as `delivered` events with their original timestamps on the app's event pipeline
/// (`/v1/b`). `cio-4` deletes the rows right after queueing, as the reference SDK does, so a
/// process that dies before the upload loses them; `improved` deletes only the rows whose
/// batch was acknowledged with a 2xx. Only a cold start recovers; a foreground return does not.
public struct LaunchRecovery: Sendable {
    public var profile: AppProfile
    public var store: any PendingMetricStore
    public var pipeline: EventPipeline
    public var identity: PipelineIdentity

    public init(profile: AppProfile, store: any PendingMetricStore, pipeline: EventPipeline, identity: PipelineIdentity) {
        self.profile = profile
        self.store = store
        self.pipeline = pipeline
        self.identity = identity
    }

    /// The host app's pipeline for `profile` (`EventPipelineConfiguration(profile:)`: CDP batch,
    /// or legacy events, with the app's User-Agent).
    public static func pipeline(for profile: AppProfile, transport: any HTTPTransport,
                                time: any TimeSource = SystemTimeSource()) -> EventPipeline {
        EventPipeline(configuration: EventPipelineConfiguration(profile: profile), transport: transport, time: time)
    }

    /// Runs recovery. `upload: false` emulates the app dying after queueing, before the flush.
    public func run(upload: Bool = true) async throws(PendingMetricStoreError) -> LaunchRecoveryReport {
        let policy: LaunchRecoveryReport.DeletePolicy = profile.sdkMode == .improved ? .afterAcknowledgement : .afterQueueing
        var report = LaunchRecoveryReport(sdkMode: profile.sdkMode, store: store.kind, storePath: store.path, deletePolicy: policy,
                                          recovered: [], deletedAfterQueueing: 0, deletedAfterAcknowledgement: 0, uploads: [],
                                          acknowledgedEvents: 0, remainingInStore: 0, remainingInQueue: 0, droppedByCap: nil)
        if profile.sdkMode == .cioLegacy {
            report.note = "SDK 2.x has no App Group recovery"
            return report
        }
        if let disabled = store as? DisabledPendingMetricStore { report.note = disabled.reason }

        // Oldest first; the sort is stable so rows with equal timestamps keep file order.
        let rows = try store.loadAll().enumerated().sorted { ($0.element.timestamp, $0.offset) < ($1.element.timestamp, $1.offset) }.map(\.element)
        var rowForMessage: [String: UUID] = [:]
        let events = rows.map { row -> PipelineEvent in
            // Improved mode: a stable message id lets the collector drop a second copy of the
            // same delivered metric (the NSE's own request uses the same key).
            let messageID = policy == .afterAcknowledgement ? CIOMetricBody.dedupKey(deliveryID: row.deliveryID) : identifiersFor(row)
            rowForMessage[messageID] = row.id
            return PipelineEvent.deliveryMetric(.delivered, deliveryID: row.deliveryID, recipient: row.deviceID,
                                                timestamp: row.timestamp, identity: identity, messageId: messageID)
        }
        report.recovered = rows.map { RecoveredRow(id: $0.id, deliveryID: $0.deliveryID, timestamp: ISO8601Timestamp.format($0.timestamp)) }

        var flushes: [FlushReport] = []
        if !events.isEmpty {
            if let f = await pipeline.enqueue(events) { flushes.append(f) }
            if policy == .afterQueueing {
                // §4: deleted right after queueing — not after the upload succeeded.
                report.deletedAfterQueueing = try store.remove(ids: Set(rows.map(\.id)))
            }
            if upload { flushes.append(await pipeline.flush()) }
        }
        for attempt in flushes.flatMap(\.attempts) {
            report.uploads.append("\(attempt.request.url): \(attempt.messageIds.count) event(s): \(attempt.outcome.summary)")
            if case .accepted = attempt.outcome {
                report.acknowledgedEvents += attempt.messageIds.count
                if policy == .afterAcknowledgement {
                    report.deletedAfterAcknowledgement += try store.remove(ids: Set(attempt.messageIds.compactMap { rowForMessage[$0] }))
                }
            }
        }
        report.remainingInStore = try store.loadAll().count
        report.remainingInQueue = await pipeline.queuedEvents.count
        report.droppedByCap = try store.droppedCount()
        return report
    }

    private func identifiersFor(_ row: PendingDeliveryMetric) -> String { row.id.uuidString.lowercased() }
}
