/// Receives every report of a bulk send, one at a time, from the bulk engine's one loop.
public protocol BulkReportSink: AnyObject {
    func record(_ report: DeliveryReport) throws
    /// Flushes whatever is buffered. Called once at the end (also after a failure).
    func finish() throws
}
