import Foundation

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
