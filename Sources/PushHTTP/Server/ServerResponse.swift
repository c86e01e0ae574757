import Foundation

public struct ServerResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// Fields sent after `headers`, their values held inline (ids an answer carries fresh each
    /// time: no string, no array per response).
    public var inlineHeaders: InlineHeaderFields

    public init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = [], inlineHeaders: InlineHeaderFields = InlineHeaderFields()) {
        self.status = status
        self.headers = headers
        self.body = body
        self.inlineHeaders = inlineHeaders
    }

    public static func json(_ status: Int, _ text: String, headers: HTTPHeaders = [:],
                            inlineHeaders: InlineHeaderFields = InlineHeaderFields()) -> ServerResponse {
        var h = headers
        h.set("content-type", "application/json")
        return ServerResponse(status: status, headers: h, body: Array(text.utf8), inlineHeaders: inlineHeaders)
    }

    public static func text(_ status: Int, _ text: String) -> ServerResponse {
        ServerResponse(status: status, headers: ["content-type": "text/plain; charset=utf-8"], body: Array(text.utf8))
    }
}
