import Foundation
import PushCore
import PushHTTP
import PushStore

/// A push record as the handler left it: `record` without its header map and payload text,
/// which `completed` builds from the request's raw headers and body (authorization redacted).
public struct RecordedPush: Sendable, Equatable {
    public var record: PushRecord
    public var rawHeaders: HTTPHeaders?
    public var body: [UInt8]?

    public init(record: PushRecord, rawHeaders: HTTPHeaders?, body: [UInt8]?) {
        self.record = record
        self.rawHeaders = rawHeaders
        self.body = body
    }

    public var completed: PushRecord {
        var r = record
        if let rawHeaders {
            var headers: [String: String] = [:]
            for h in rawHeaders {
                let name = asciiLowercased(h.name)
                headers[name] = name == "authorization" ? "bearer <redacted>" : h.value
            }
            r.headers = headers
        }
        if let body { r.payload = String(decoding: body.prefix(8192), as: UTF8.self) }
        return r
    }
}
