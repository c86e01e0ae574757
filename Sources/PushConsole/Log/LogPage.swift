/// One page of the log, newest first.
public struct LogPage: Sendable {
    public var pushes: [LoggedPush]
    /// Pushes the log holds (all of them, not only the filtered ones).
    public var total: Int
    /// The newest id in the log (0 when empty): the live stream continues after it.
    public var latestID: Int64
    /// Pass as `before` to get the next (older) page; nil when this page reached the oldest push.
    public var nextBefore: Int64?
}
