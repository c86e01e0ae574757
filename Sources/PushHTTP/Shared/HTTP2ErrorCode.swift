/// An HTTP/2 error code, as RST_STREAM and GOAWAY carry it (RFC 9113 §7). Named so code reads
/// `.internalError`, not `2`; an integer literal still works for codes without a name.
public struct HTTP2ErrorCode: RawRepresentable, Sendable, Hashable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(integerLiteral value: UInt32) { rawValue = value }

    public static let noError: HTTP2ErrorCode = 0x0
    public static let protocolError: HTTP2ErrorCode = 0x1
    public static let internalError: HTTP2ErrorCode = 0x2
    public static let flowControlError: HTTP2ErrorCode = 0x3
    public static let settingsTimeout: HTTP2ErrorCode = 0x4
    public static let streamClosed: HTTP2ErrorCode = 0x5
    public static let frameSizeError: HTTP2ErrorCode = 0x6
    public static let refusedStream: HTTP2ErrorCode = 0x7
    public static let cancel: HTTP2ErrorCode = 0x8
    public static let compressionError: HTTP2ErrorCode = 0x9
    public static let connectError: HTTP2ErrorCode = 0xa
    public static let enhanceYourCalm: HTTP2ErrorCode = 0xb
    public static let inadequateSecurity: HTTP2ErrorCode = 0xc
    public static let http11Required: HTTP2ErrorCode = 0xd

    public var description: String { "0x" + String(rawValue, radix: 16) }
}
