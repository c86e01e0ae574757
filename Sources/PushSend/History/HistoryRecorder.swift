/// Buffers reports and writes them to the history a batch at a time.
public final class HistoryRecorder: BulkReportSink {
    private let store: SendHistoryStore
    private let endpoint: String?
    private let batch: String?
    private var pending: [DeliveryReport] = []
    private let batchSize: Int

    public init(store: SendHistoryStore, endpoint: String?, batch: String?, batchSize: Int = 2_000) {
        self.store = store
        self.endpoint = endpoint
        self.batch = batch
        self.batchSize = batchSize
        pending.reserveCapacity(batchSize)
    }

    public func record(_ report: DeliveryReport) throws {
        pending.append(report)
        if pending.count >= batchSize { try flush() }
    }

    public func finish() throws { try flush() }

    private func flush() throws {
        try store.record(pending, endpoint: endpoint, batch: batch)
        pending.removeAll(keepingCapacity: true)
    }
}
