import Foundation
import Synchronization

/// A request as the server hands it to a route handler.
public struct ServerRequest: Sendable {
    public var method: String
    /// The path without the query string, percent-encoding kept.
    public var path: String
    public var query: String?
    public var headers: HTTPHeaders
    public var body: [UInt8]
    public var version: HTTPVersion
    /// HTTP/2 stream id (0 for HTTP/1.1).
    public var streamID: Int32
    /// Values of the `{name}` segments of the matched route pattern.
    public var pathParameters: [String: String]
    public var connection: ConnectionContext

    public init(method: String, path: String, query: String? = nil, headers: HTTPHeaders = [:], body: [UInt8] = [],
                version: HTTPVersion = .http2, streamID: Int32 = 0, pathParameters: [String: String] = [:],
                connection: ConnectionContext) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.version = version
        self.streamID = streamID
        self.pathParameters = pathParameters
        self.connection = connection
    }
}

public struct ServerResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public static func json(_ status: Int, _ text: String, headers: HTTPHeaders = [:]) -> ServerResponse {
        var h = headers
        h.set("content-type", "application/json")
        return ServerResponse(status: status, headers: h, body: Array(text.utf8))
    }

    public static func text(_ status: Int, _ text: String) -> ServerResponse {
        ServerResponse(status: status, headers: ["content-type": "text/plain; charset=utf-8"], body: Array(text.utf8))
    }
}

/// What a handler decides. `.now` is answered on the event-loop thread with no task hop;
/// `.later` runs the closure on the Swift concurrency pool and answers when it returns.
/// `.resetStream` answers with RST_STREAM (HTTP/1.1: closes the connection).
public enum HandlerReply: Sendable {
    case now(ServerResponse)
    case later(@Sendable () async -> ServerResponse)
    case resetStream(errorCode: HTTP2ErrorCode)
}

/// A route handler. It runs on the server's event-loop thread: keep it quick, or return `.later`.
/// A handler that throws is answered with a 500 and the server lives on.
public typealias RouteHandler = @Sendable (ServerRequest) throws -> HandlerReply

/// HTTP/2 SETTINGS the server advertises. Nil fields are left at the protocol default.
public struct HTTP2Settings: Sendable, Hashable {
    public var maxConcurrentStreams: UInt32?
    public var initialWindowSize: UInt32?
    public var maxFrameSize: UInt32?
    public var maxHeaderListSize: UInt32?
    public var headerTableSize: UInt32?

    public init(maxConcurrentStreams: UInt32? = 100, initialWindowSize: UInt32? = nil, maxFrameSize: UInt32? = nil,
                maxHeaderListSize: UInt32? = nil, headerTableSize: UInt32? = nil) {
        self.maxConcurrentStreams = maxConcurrentStreams
        self.initialWindowSize = initialWindowSize
        self.maxFrameSize = maxFrameSize
        self.maxHeaderListSize = maxHeaderListSize
        self.headerTableSize = headerTableSize
    }
}

/// What a handler may do to the connection its request came on. Every method is safe to call
/// from any thread; the server applies it on its event loop.
public protocol ConnectionControl: AnyObject, Sendable {
    /// Sends a new SETTINGS frame on a live HTTP/2 connection (no-op on HTTP/1.1).
    func updateSettings(_ settings: HTTP2Settings)
    /// Sends GOAWAY with the given error code and debug data, lets in-flight streams at or
    /// below the last stream id finish, then closes.
    func goAway(errorCode: UInt32, debugData: [UInt8])
    /// Closes the connection at once.
    func close()
}

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
public final class ConnectionStorage: @unchecked Sendable {
    /// One value, boxed once: `update` then changes it in place instead of re-boxing it on
    /// every call (it runs on every APNs request; benchmarks/results/gateway.md).
    private final class Slot<T> {
        var value: T
        init(_ value: T) { self.value = value }
    }
    // Protected by `lock`; each value is a `Slot<T>` of the type it was stored as.
    private var values: [String: AnyObject] = [:]
    private let lock = NSLock()

    public init() {}

    public subscript<T: Sendable>(key: String, as type: T.Type = T.self) -> T? {
        get { lock.withLock { (values[key] as? Slot<T>)?.value } }
    }

    public func set<T: Sendable>(_ key: String, _ value: T?) {
        lock.withLock { values[key] = value.map { Slot($0) } }
    }

    /// Reads, transforms and stores a value atomically; a value of another type under `key`
    /// is replaced by `defaultValue` transformed.
    public func update<T: Sendable, R>(_ key: String, default defaultValue: T, _ body: (inout T) -> R) -> R {
        lock.withLock {
            if let slot = values[key] as? Slot<T> { return body(&slot.value) }
            let slot = Slot(defaultValue)
            values[key] = slot
            return body(&slot.value)
        }
    }
}
