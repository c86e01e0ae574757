import Foundation
import PushHTTP
import Synchronization

/// One simulated phone's network in the SDK comparison: offline (a request fails before it
/// leaves) or an ingest outage (the answer is a 503, as a collector in trouble gives), decided
/// per push by the seed. Normal requests go to the lab's real collector.
final class PhoneIngestFaults: HTTPTransport {
    enum Mode: Sendable { case normal, offline, outage }
    private let upstream: any HTTPTransport
    private let mode = Mutex(Mode.normal)

    init(_ upstream: any HTTPTransport) { self.upstream = upstream }

    func set(_ m: Mode) { mode.withLock { $0 = m } }

    struct Offline: Error {}

    nonisolated(nonsending) func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        switch mode.withLock({ $0 }) {
        case .offline: throw Offline()
        case .outage: return HTTPResponse(status: 503, body: Array(#"{"error":"unavailable"}"#.utf8))
        case .normal: return try await upstream.send(request)
        }
    }
}
