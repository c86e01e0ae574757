/// What `complete` did with a batch.
public struct CompletionReport: Sendable, Hashable {
    /// Results stored as the target's final one.
    public var recorded: Int
    /// Results for targets that already had one (sent twice: after a lease ran out or a crash).
    public var duplicates: Int
    /// Where in the batch the results that were not stored are (0-based positions in
    /// `complete`'s argument, ascending: the duplicates, and a claim the queue does not know);
    /// every other result was recorded. A caller that completes many targets at once
    /// announces only the recorded ones.
    public var ignoredPositions: [Int]
    /// Pushes whose last result this batch recorded: each push is in exactly one report, even
    /// when several workers or relay nodes finish its last targets at the same moment (so
    /// `push_finished` is announced once).
    public var finishedPushes: Set<PushID>
    public init(recorded: Int = 0, duplicates: Int = 0, ignoredPositions: [Int] = [], finishedPushes: Set<PushID> = []) {
        self.recorded = recorded
        self.duplicates = duplicates
        self.ignoredPositions = ignoredPositions
        self.finishedPushes = finishedPushes
    }
}
