import Foundation
import PushHTTP

/// The collector on its own `HTTPServer` (what `pushlab collector` runs): the three metric
/// routes plus `GET /health`, on TLS (h2 + HTTP/1.1) and/or cleartext (h2c + HTTP/1.1).
/// `stop()` drains in-flight requests, then commits every pending metric.
public final class CollectorServer: Sendable {
    public let collector: MetricsCollector
    private let server: HTTPServer

    /// `benchRoute`: also answer `POST /bench` with an empty 200 and no other work (the raw
    /// server that benchmarks/collector.sh compares the metric routes with, in one process).
    public init(collector: MetricsCollector, configuration: HTTPServerConfiguration, benchRoute: Bool = false) {
        self.collector = collector
        var router = collector.makeRouter()
        router.add("GET", "/health") { _ in .now(.json(200, #"{"status":"ok"}"#)) }
        if benchRoute { router.add("POST", "/bench") { _ in .now(ServerResponse(status: 200)) } }
        server = HTTPServer(configuration: configuration, router: router)
    }

    public func start() throws(HTTPServerError) { try server.start() }

    public var boundAddresses: BoundAddresses? { server.boundAddresses }
    public var tlsPort: Int? { server.tlsPort }
    public var cleartextPort: Int? { server.cleartextPort }

    public func stop() async {
        await server.stop()
        collector.flush()
    }
}
