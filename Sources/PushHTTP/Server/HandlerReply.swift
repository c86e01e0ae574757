import Foundation

/// What a handler decides. `.now` is answered on the event-loop thread with no task hop;
/// `.later` runs the closure on the Swift concurrency pool and answers when it returns.
/// `.resetStream` answers with RST_STREAM (HTTP/1.1: closes the connection).
/// `.callback` starts the work on the event-loop thread and hands it a `CallbackResponder` to
/// answer through exactly once, from any thread, when the answer is ready: no task, no pool
/// thread (the collector answers from its SQLite writer after the commit, a whole commit's
/// answers in one `ResponseBatch`).
public enum HandlerReply: Sendable {
    case now(ServerResponse)
    case later(@Sendable () async -> ServerResponse)
    case callback(@Sendable (_ respond: CallbackResponder) -> Void)
    case resetStream(errorCode: HTTP2ErrorCode)
}

extension HandlerReply {
    /// The response this reply answers with, awaited: `.later` work runs here and a
    /// `.callback` is started here and awaited until it responds. nil for `.resetStream`,
    /// which answers with no response. For code that must end in one response (a fault that
    /// answers late, a test driving a `Router` without a server); the server itself answers
    /// `.now` and `.callback` without a task (`RequestDispatcher`).
    public func response() async -> ServerResponse? {
        switch self {
        case .now(let response): return response
        case .later(let work): return await work()
        case .callback(let start): return await withCheckedContinuation { done in start(CallbackResponder { done.resume(returning: $0) }) }
        case .resetStream: return nil
        }
    }

    /// This reply with `observe` called on its response when that is made, on the thread that
    /// makes it (`.now`: at once; `.later`: on the pool; `.callback`: wherever it responds),
    /// keeping the reply's kind, so no task hop is added. A reset has no response: it is
    /// returned as it is.
    public func observingResponse(_ observe: @escaping @Sendable (ServerResponse) -> Void) -> HandlerReply {
        switch self {
        case .now(let response):
            observe(response)
            return self
        case .later(let work):
            return .later {
                let response = await work()
                observe(response)
                return response
            }
        case .callback(let start):
            return .callback { respond in
                start(CallbackResponder { response in
                    observe(response)
                    respond(response)
                })
            }
        case .resetStream:
            return self
        }
    }
}
