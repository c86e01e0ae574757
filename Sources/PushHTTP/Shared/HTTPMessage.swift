import Foundation

/// One header field. Order and repetition are kept: the APNs emulator must see duplicates.
public struct HTTPHeader: Sendable, Hashable {
    public var name: String
    public var value: String
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
    /// True when this field is called `name`, compared as field names are (ASCII, any case).
    public func hasName(_ name: String) -> Bool { HTTPHeaders.namesMatch(self.name, name) }
}

/// An ordered list of header fields with case-insensitive lookup.
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var fields: [HTTPHeader]

    public init(_ fields: [HTTPHeader] = []) { self.fields = fields }
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { HTTPHeader($0.0, $0.1) }
    }

    public func makeIterator() -> IndexingIterator<[HTTPHeader]> { fields.makeIterator() }
    public var count: Int { fields.count }

    /// The first value for `name` (case-insensitive), or nil.
    public subscript(name: String) -> String? {
        fields.first { HTTPHeaders.namesMatch($0.name, name) }?.value
    }
    /// Every value for `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { HTTPHeaders.namesMatch($0.name, name) }.map(\.value)
    }
    public mutating func add(_ name: String, _ value: String) { fields.append(HTTPHeader(name, value)) }
    /// Replaces every field named `name` with one field.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        add(name, value)
    }
    public mutating func remove(_ name: String) {
        fields.removeAll { HTTPHeaders.namesMatch($0.name, name) }
    }

    /// Field names are ASCII tokens (RFC 9110 §5.1), so an ASCII case fold is exact — and far
    /// cheaper than Foundation's locale-aware comparison on the server's hot path.
    static func namesMatch(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                guard x.count == y.count else { return false }
                for index in 0..<x.count where x[index] != y[index] {
                    let l = x[index] | 0x20, r = y[index] | 0x20
                    guard l == r, l >= UInt8(ascii: "a"), l <= UInt8(ascii: "z") else { return false }
                }
                return true
            }
        }
    }
}

public enum HTTPVersion: String, Sendable, Codable {
    case http1_1 = "HTTP/1.1"
    case http2 = "HTTP/2"
}

/// A client request. Per-request limits override the client's configuration.
public struct HTTPRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// Whole-request deadline; nil uses the client's default.
    public var timeout: Duration?
    /// Abort the transfer as soon as the response body exceeds this many bytes.
    public var maxResponseBodyBytes: Int?
    /// How many redirects to follow (0: none).
    public var maxRedirects: Int

    public init(method: String = "GET", url: String, headers: HTTPHeaders = [:], body: [UInt8] = [],
                timeout: Duration? = nil, maxResponseBodyBytes: Int? = nil, maxRedirects: Int = 0) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.maxResponseBodyBytes = maxResponseBodyBytes
        self.maxRedirects = maxRedirects
    }
}

/// Where the time of one exchange went, measured from the moment the request was queued.
public struct HTTPTimings: Sendable, Hashable {
    public var connect: Duration
    public var tlsHandshake: Duration
    public var firstByte: Duration
    public var total: Duration
    public init(connect: Duration = .zero, tlsHandshake: Duration = .zero, firstByte: Duration = .zero, total: Duration = .zero) {
        self.connect = connect
        self.tlsHandshake = tlsHandshake
        self.firstByte = firstByte
        self.total = total
    }
}

public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]
    public var version: HTTPVersion
    public var timings: HTTPTimings
    /// The URL the body came from after redirects.
    public var effectiveURL: String?
    /// Every URL visited, the requested one first (redirect chains).
    public var redirectChain: [String]

    public init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = [], version: HTTPVersion = .http2,
                timings: HTTPTimings = HTTPTimings(), effectiveURL: String? = nil, redirectChain: [String] = []) {
        self.status = status
        self.headers = headers
        self.body = body
        self.version = version
        self.timings = timings
        self.effectiveURL = effectiveURL
        self.redirectChain = redirectChain
    }

    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// Why a client exchange failed before a response arrived.
public enum HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidURL(String)
    case connectFailed(String)
    case tlsFailed(String)
    case timedOut(after: Duration)
    case cancelled
    case responseTooLarge(limit: Int)
    case tooManyRedirects(limit: Int)
    case protocolError(String)
    case shutDown

    public var description: String {
        switch self {
        case .invalidURL(let url): return "invalid URL '\(url)'"
        case .connectFailed(let why): return "could not connect: \(why)"
        case .tlsFailed(let why): return "TLS failed: \(why)"
        case .timedOut(let after): return "timed out after \(after)"
        case .cancelled: return "cancelled"
        case .responseTooLarge(let limit): return "response body exceeded \(limit) bytes; transfer aborted"
        case .tooManyRedirects(let limit): return "more than \(limit) redirects"
        case .protocolError(let why): return "protocol error: \(why)"
        case .shutDown: return "client is shut down"
        }
    }
}

/// Anything that can carry one request to a server. The libcurl `HTTPClient` is the real one;
/// code above the transport takes this protocol so tests and the simulator can drive it.
public protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}
