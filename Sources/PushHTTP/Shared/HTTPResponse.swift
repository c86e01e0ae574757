import Foundation

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
