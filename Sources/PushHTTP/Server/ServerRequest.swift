import Foundation

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
    /// Values of the `{name}` segments of the matched route pattern, read from the path on demand.
    public var pathParameters: PathParameters
    public var connection: ConnectionContext

    public init(method: String, path: String, query: String? = nil, headers: HTTPHeaders = [:], body: [UInt8] = [],
                version: HTTPVersion = .http2, streamID: Int32 = 0, pathParameters: PathParameters = PathParameters(),
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
