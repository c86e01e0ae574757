import Foundation
import Synchronization

/// Per-connection identity and storage, shared by every request on one connection.
public final class ConnectionContext: Sendable {
    public let id: UInt64
    public let isTLS: Bool
    public let remoteAddress: String
    /// Handlers keep per-connection state here (e.g. the APNs team pinned to a connection).
    public let storage: ConnectionStorage
    private let control: ConnectionControl?

    public init(id: UInt64, isTLS: Bool, remoteAddress: String, control: ConnectionControl?) {
        self.id = id
        self.isTLS = isTLS
        self.remoteAddress = remoteAddress
        self.control = control
        self.storage = ConnectionStorage()
    }

    /// The client's TLS certificate and its verification verdict, once the handshake is done;
    /// nil without TLS, when the server asks for none (`clientCertificateCAFile`), or when the
    /// client sent none.
    public var peerCertificate: PeerCertificate? { peer.withLock { $0 } }
    private let peer = Mutex<PeerCertificate?>(nil)
    func setPeerCertificate(_ certificate: PeerCertificate?) { peer.withLock { $0 = certificate } }

    public func updateSettings(_ settings: HTTP2Settings) { control?.updateSettings(settings) }
    public func goAway(errorCode: HTTP2ErrorCode = .noError, debugData: [UInt8] = []) { control?.goAway(errorCode: errorCode.rawValue, debugData: debugData) }
    public func close() { control?.close() }
}

/// A small lock-protected key/value box for per-connection state.
public final class ConnectionStorage: Sendable {
    /// One value, boxed once: `update` then changes it in place instead of re-boxing it on
    /// every call (it runs on every APNs request; benchmarks/results/gateway.md).
    @usableFromInline package final class Slot<T> {
        @usableFromInline package var value: T
        @usableFromInline package init(_ value: T) { self.value = value }
    }
    /// Each value is a `Slot<T>` of the type it was stored as; `last` is the entry found last.
    @usableFromInline package struct Table {
        @usableFromInline package var values: [String: AnyObject] = [:]
        /// The key and slot `update` used last: handlers ask for the same key on every request
        /// of a connection (the APNs route's `apns.auth`), and comparing a short key is cheaper
        /// than hashing it (benchmarks/results/gateway.md).
        @usableFromInline package var lastKey = ""
        @usableFromInline package var lastSlot: AnyObject?
        @usableFromInline package init() {}
    }
    @usableFromInline package let table = SanitizerVisibleMutex(Table())

    public init() {}

    public subscript<T: Sendable>(key: String, as type: T.Type = T.self) -> T? {
        get { table.withLock { ($0.values[key] as? Slot<T>)?.value } }
    }

    public func set<T: Sendable>(_ key: String, _ value: T?) {
        table.withLock { table in
            table.values[key] = value.map { Slot($0) }
            if table.lastKey == key { table.lastSlot = nil }
        }
    }

    /// Reads, transforms and stores a value atomically; a value of another type under `key`
    /// is replaced by `defaultValue` transformed. Inlinable, so the calling module specializes it
    /// for its value type: unspecialized, every call looked up `Slot<T>`'s generic metadata in the
    /// runtime (`swift_getGenericMetadata`, on every APNs request; benchmarks/results/gateway-profile.md).
    @inlinable
    package func update<T: Sendable, R>(_ key: String, default defaultValue: T, _ body: (inout T) -> R) -> R {
        table.withLock { table in
            // The type compared by identity, not `as?`: a dynamic cast on every request cost
            // more than the rest of the lookup (benchmarks/results/gateway.md).
            if table.lastKey == key, let last = table.lastSlot, ObjectIdentifier(type(of: last)) == ObjectIdentifier(Slot<T>.self) {
                return body(&unsafeDowncast(last, to: Slot<T>.self).value)
            }
            let slot: Slot<T>
            if let found = table.values[key] as? Slot<T> {
                slot = found
            } else {
                slot = Slot(defaultValue)
                table.values[key] = slot
            }
            table.lastKey = key
            table.lastSlot = slot
            return body(&slot.value)
        }
    }
}
