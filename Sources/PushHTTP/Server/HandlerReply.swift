import Foundation

/// What a handler decides. `.now` is answered on the event-loop thread with no task hop;
/// `.later` runs the closure on the Swift concurrency pool and answers when it returns.
/// `.resetStream` answers with RST_STREAM (HTTP/1.1: closes the connection).
public enum HandlerReply: Sendable {
    case now(ServerResponse)
    case later(@Sendable () async -> ServerResponse)
    case resetStream(errorCode: HTTP2ErrorCode)
}
