import Foundation

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
