/// `--prune-file`: the tokens the provider says are dead (APNs Unregistered, BadDeviceToken,
/// ExpiredToken; FCM UNREGISTERED), one per line, ready to delete from the audience.
public final class PruneFileWriter: BulkReportSink {
    private let out: BufferedFileWriter
    public private(set) var count = 0

    public init(path: String) throws(BulkInputError) { out = try BufferedFileWriter(path: path) }

    public func record(_ report: DeliveryReport) throws {
        guard report.prune else { return }
        count += 1
        try out.write(report.target + "\n")
    }

    public func finish() throws { try out.flush() }
}
