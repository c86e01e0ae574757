import CPushLab
import Foundation

/// A Lua script run with `EVALSHA`, sent whole (`EVAL`) only when the server does not know it
/// yet (after a restart or `SCRIPT FLUSH`). Scripts run atomically: no other command runs
/// between their reads and writes, which is what makes them the cluster's compare-and-set.
public struct RedisScript: Sendable, Hashable {
    public let source: String
    /// The SHA-1 of the source, hex, as Redis names the script.
    public let sha1: String

    public init(_ source: String) {
        self.source = source
        var digest = [UInt8](repeating: 0, count: 20)
        let bytes = Array(source.utf8)
        _ = bytes.withUnsafeBufferPointer { SHA1($0.baseAddress, $0.count, &digest) }
        sha1 = digest.map { String(format: "%02x", $0) }.joined()
    }
}

extension RedisClient {
    /// Runs `script` with `keys` and `arguments`; an error raised by the script throws `.server`.
    @discardableResult
    public func eval(_ script: RedisScript, keys: [String] = [], arguments: [String] = []) async throws(RedisError) -> RedisReply {
        let tail = [String(keys.count)] + keys + arguments
        do {
            return try await execute(RedisCommand("EVALSHA", [script.sha1] + tail))
        } catch .server(let message) where message.hasPrefix("NOSCRIPT") {
            return try await execute(RedisCommand("EVAL", [script.source] + tail))
        }
    }
}

extension RedisClient {
    /// Loads `scripts` into the server's script cache (`SCRIPT LOAD`), so the first `EVALSHA`s
    /// of many callers at once do not each fall back to sending the whole script. On a Redis
    /// Cluster every master gets them (a master restarted since falls back to `EVAL` once).
    public func load(_ scripts: [RedisScript]) async throws(RedisError) {
        try await onEveryMaster(scripts.map { RedisCommand("SCRIPT", "LOAD", $0.source) })
    }
}
