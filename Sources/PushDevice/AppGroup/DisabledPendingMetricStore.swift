import Foundation

/// The store that is not there: kind `off`, no container, or a wrong App Group id.
public struct DisabledPendingMetricStore: PendingMetricStore {
    public let reason: String
    public init(reason: String) { self.reason = reason }
    public var kind: AppGroupStoreKind { .off }
    public var path: String? { nil }
    public func append(_ metric: PendingDeliveryMetric) throws(PendingMetricStoreError) -> PendingAppendOutcome { .disabled(reason: reason) }
    public func loadAll() throws(PendingMetricStoreError) -> [PendingDeliveryMetric] { [] }
    public func remove(ids: Set<UUID>) throws(PendingMetricStoreError) -> Int { 0 }
    public func droppedCount() throws(PendingMetricStoreError) -> Int? { nil }
}
