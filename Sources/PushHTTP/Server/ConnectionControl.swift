import Foundation

/// What a handler may do to the connection its request came on. Every method is safe to call
/// from any thread; the server applies it on its event loop.
public protocol ConnectionControl: AnyObject, Sendable {
    /// Sends a new SETTINGS frame on a live HTTP/2 connection (no-op on HTTP/1.1).
    func updateSettings(_ settings: HTTP2Settings)
    /// Sends GOAWAY with the given error code and debug data, lets in-flight streams at or
    /// below the last stream id finish, then closes.
    func goAway(errorCode: UInt32, debugData: [UInt8])
    /// Closes the connection at once.
    func close()
}
