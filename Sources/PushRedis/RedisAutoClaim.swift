/// What `XAUTOCLAIM` took over: the entries (now owned by the caller, delivery count raised),
/// the ids that were pending but no longer exist in the stream (removed from the PEL by Redis),
/// and where the next scan starts (`0-0` once the whole PEL was scanned).
public struct RedisAutoClaim: Sendable, Hashable {
    public var nextStart: String
    public var entries: [RedisStreamEntry]
    public var deletedIDs: [String]
}
