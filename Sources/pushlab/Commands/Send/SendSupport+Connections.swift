import Foundation
import PushCore
import PushHTTP
import PushSend

/// The HTTP/2 clients a send uses: CA, timeout, retries, connections, verbose log.
extension SendSupport {
    static func retryPolicy(_ args: ParsedArguments) throws -> RetryPolicy {
        RetryPolicy(maxAttempts: try args[retries] + 1)
    }

    /// `--ca-file`, checked readable before any client is made (nil: the system store).
    static func caFile(_ path: String?) throws -> String? {
        if let path, !FileManager.default.isReadableFile(atPath: path) {
            throw UsageError("--ca-file \(path): cannot read the file", fix: "pass a PEM file of CA certificates, e.g. certs/ca.pem")
        }
        return path
    }

    /// One configuration per connection (`--connections` in bulk, else one): CA, timeout and
    /// the streams each may open (`--concurrency` spread over them).
    static func clientConfigurations(_ args: ParsedArguments, bulk: Bool,
                                     clientCertificate: HTTPClientConfiguration.ClientCertificate? = nil) throws -> [HTTPClientConfiguration] {
        let connections = bulk ? try args[Self.connections] : 1
        let concurrency = try args[Self.concurrency]
        let caFile = try Self.caFile(try args[caFileOption])
        let timeout = try args[Self.timeout]
        let perConnection = max(1, (concurrency + connections - 1) / connections)
        var configuration = HTTPClientConfiguration(caFile: caFile, maxConcurrentStreams: max(perConnection, 1), maxConnectionsPerHost: 1,
                                                    requestTimeout: timeout + .seconds(5))
        configuration.clientCertificate = clientCertificate
        return Array(repeating: configuration, count: connections)
    }

    /// libcurl clients (the console's senders, which have no `--transport`).
    static func httpClients(_ args: ParsedArguments, bulk: Bool,
                            clientCertificate: HTTPClientConfiguration.ClientCertificate? = nil) throws -> [HTTPClient] {
        try clientConfigurations(args, bulk: bulk, clientCertificate: clientCertificate).map { try HTTPClient(configuration: $0) }
    }

    /// The clients of `send apns|fcm`, one per connection, each with its own loop thread: the
    /// `--transport` asked for when it can serve the send, libcurl when only it can (client
    /// certificates, a proxy variable set; `HTTPTransports` decides). `--verbose` says which.
    static func sendClients(_ args: ParsedArguments, bulk: Bool,
                            clientCertificate: HTTPClientConfiguration.ClientCertificate? = nil) throws -> [any LoopHTTPTransport] {
        let configurations = try clientConfigurations(args, bulk: bulk, clientCertificate: clientCertificate)
        let preferred = try args[transportOption]
        let (kind, reason) = HTTPTransports.kind(for: configurations[0], preferring: preferred)
        if let log = verboseLog(args) {
            log("transport: \(kind.rawValue)" + (reason.map { " (not \(preferred.rawValue): \($0))" } ?? "")
                + ", \(configurations.count) connection(s), one loop thread each")
        }
        return try configurations.map { try HTTPTransports.make(configuration: $0, preferring: kind) }
    }

    /// The client a bulk send's push `index` goes out on (the loop it runs on: `runBulk`).
    static func client<C>(_ perConnection: [C], for index: UInt64) -> C {
        perConnection[Int(index % UInt64(perConnection.count))]
    }

    static func transport(_ clients: [any LoopHTTPTransport]) -> any HTTPTransport {
        clients.count == 1 ? clients[0] : RoundRobinTransport(clients)
    }

    static func verboseLog(_ args: ParsedArguments) -> (@Sendable (String) -> Void)? {
        args[verbose] ? { @Sendable line in printError(line) } : nil
    }
}
