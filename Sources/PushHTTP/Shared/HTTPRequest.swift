import Foundation

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
