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

    static func httpClients(_ args: ParsedArguments, bulk: Bool,
                            clientCertificate: HTTPClientConfiguration.ClientCertificate? = nil) throws -> [HTTPClient] {
        let connections = bulk ? try args[Self.connections] : 1
        let concurrency = try args[Self.concurrency]
        let caFile = try Self.caFile(try args[caFileOption])
        let timeout = try args[Self.timeout]
        let perConnection = max(1, (concurrency + connections - 1) / connections)
        return try (0..<connections).map { _ in
            var configuration = HTTPClientConfiguration(caFile: caFile, maxConcurrentStreams: max(perConnection, 1), maxConnectionsPerHost: 1,
                                                        requestTimeout: timeout + .seconds(5))
            configuration.clientCertificate = clientCertificate
            return try HTTPClient(configuration: configuration)
        }
    }

    /// The client a bulk send's push `index` goes out on (the loop it runs on: `runBulk`).
    static func client<C>(_ perConnection: [C], for index: UInt64) -> C {
        perConnection[Int(index % UInt64(perConnection.count))]
    }

    static func transport(_ clients: [HTTPClient]) -> any HTTPTransport {
        clients.count == 1 ? clients[0] : RoundRobinTransport(clients)
    }

    static func verboseLog(_ args: ParsedArguments) -> (@Sendable (String) -> Void)? {
        args[verbose] ? { @Sendable line in printError(line) } : nil
    }
}
