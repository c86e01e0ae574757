import Foundation

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
