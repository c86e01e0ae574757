/// Where a Redis Cluster runs: `redis-cluster://[[USER]:PASSWORD@]HOST:PORT[,HOST:PORT…]`,
/// the seed nodes the client asks for the slot map (`CLUSTER SLOTS`); one reachable seed is
/// enough, the rest of the cluster is discovered. A cluster has database 0 only.
/// `description` never shows the password.
public struct RedisClusterEndpoint: Sendable, Hashable, CustomStringConvertible {
    public static let scheme = "redis-cluster://"
    public var seeds: [RedisEndpoint]

    public init(seeds: [RedisEndpoint]) {
        precondition(!seeds.isEmpty, "a cluster needs at least one seed")
        self.seeds = seeds
    }

    /// Parses a `redis-cluster://` URL; the error names the wrong part and the form to use.
    public init(url: String) throws(RedisEndpointError) {
        let form = "write redis-cluster://HOST:PORT,HOST:PORT,… (any reachable master is enough), e.g. redis-cluster://127.0.0.1:7000,127.0.0.1:7001"
        guard url.hasPrefix(Self.scheme) else {
            throw .init(url: url, problem: "it does not start with \(Self.scheme)", form: form)
        }
        var rest = Substring(url.dropFirst(Self.scheme.count))
        var credentials = ""
        if let at = rest.lastIndex(of: "@") {
            credentials = String(rest[..<at]) + "@"
            rest = rest[rest.index(after: at)...]
        }
        if rest.contains("/") {
            let tail = rest[rest.firstIndex(of: "/")!...]
            guard tail == "/" || tail == "/0" else {
                throw .init(url: url, problem: "a Redis Cluster has database 0 only (found '\(tail)')", form: form)
            }
            rest = rest[..<rest.firstIndex(of: "/")!]
        }
        let parts = rest.split(separator: ",", omittingEmptySubsequences: false)
        guard !parts.isEmpty, !(parts.count == 1 && parts[0].isEmpty) else { throw .init(url: url, problem: "no HOST:PORT is given", form: form) }
        var seeds: [RedisEndpoint] = []
        for part in parts {
            guard !part.isEmpty else { throw .init(url: url, problem: "an empty HOST:PORT between commas", form: form) }
            do {
                seeds.append(try RedisEndpoint(url: "redis://" + credentials + part))
            } catch {
                throw .init(url: url, problem: "seed '\(part)': \(error.problem)", form: form)
            }
        }
        self.seeds = seeds
    }

    public var description: String {
        let first = seeds[0]
        let credentials = first.password == nil ? "" : "\(first.username ?? ""):<redacted>@"
        return Self.scheme + credentials + seeds.map { ($0.host.contains(":") ? "[\($0.host)]" : $0.host) + ":\($0.port)" }.joined(separator: ",")
    }
}
