import PushHTTP
import Synchronization

/// The phone's network as the SDK sees it: when offline every request fails before it leaves
/// (a network error, which the offline queue treats like a 5xx, docs/specs/retainza.md §6).
public final class RetainzaConnectivity: HTTPTransport {
    private let upstream: any HTTPTransport
    private let offline = Mutex(false)

    public init(_ upstream: any HTTPTransport) { self.upstream = upstream }

    public var isOffline: Bool {
        get { offline.withLock { $0 } }
        set { offline.withLock { $0 = newValue } }
    }

    public struct Offline: Error {}

    public nonisolated(nonsending) func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        if offline.withLock({ $0 }) { throw Offline() }
        return try await upstream.send(request)
    }
}
