import Foundation

/// What a handler decides. `.now` is answered on the event-loop thread with no task hop;
/// `.later` runs the closure on the Swift concurrency pool and answers when it returns.
/// `.resetStream` answers with RST_STREAM (HTTP/1.1: closes the connection).
/// `.callback` starts the work on the event-loop thread and hands it a `respond` closure to
/// call exactly once, from any thread, when the answer is ready: no task, no pool thread (the
/// collector answers from its SQLite writer after the commit).
public enum HandlerReply: Sendable {
    case now(ServerResponse)
    case later(@Sendable () async -> ServerResponse)
    case callback(@Sendable (_ respond: @escaping @Sendable (ServerResponse) -> Void) -> Void)
    case resetStream(errorCode: HTTP2ErrorCode)
}
