/// Where the answer of a `.callback` reply goes: the request's stream on the event loop that
/// received it — or, for a reply resolved without a server (`HandlerReply.response()`, a
/// middleware observing the answer), a closure. Answer exactly once, from any thread: call it
/// (`respond(response)`) or add the answer to a `ResponseBatch`.
public struct CallbackResponder: Sendable {
    enum Destination: Sendable {
        case stream(ServerEventLoop, connectionID: UInt64, streamID: Int32)
        case closure(@Sendable (ServerResponse) -> Void)
    }
    let destination: Destination

    init(loop: ServerEventLoop, connectionID: UInt64, streamID: Int32) {
        destination = .stream(loop, connectionID: connectionID, streamID: streamID)
    }

    /// A responder that hands the answer to `respond`.
    public init(_ respond: @escaping @Sendable (ServerResponse) -> Void) {
        destination = .closure(respond)
    }

    /// Sends `response` now (a stream's: one job on its event loop).
    public func callAsFunction(_ response: ServerResponse) {
        switch destination {
        case .stream(let loop, let connectionID, let streamID):
            loop.execute { core in core.connection(connectionID)?.deliver(streamID: streamID, response) }
        case .closure(let respond):
            respond(response)
        }
    }
}

/// Answers made together (the collector's, after one group commit), sent together: one job per
/// event loop — one lock, one wake-up, one write per connection — instead of one per answer.
/// Answers to one loop go out in the order they were added.
public struct ResponseBatch: Sendable {
    private var streams: [(loop: ServerEventLoop, answers: [StreamAnswer])] = []
    private var closures: [(respond: @Sendable (ServerResponse) -> Void, response: ServerResponse)] = []

    public init() {}

    public var isEmpty: Bool { streams.isEmpty && closures.isEmpty }

    /// Adds `response` as `responder`'s answer; it goes out at `send()`.
    public mutating func add(_ response: ServerResponse, for responder: CallbackResponder) {
        switch responder.destination {
        case .stream(let loop, let connectionID, let streamID):
            let answer = StreamAnswer(connectionID: connectionID, streamID: streamID, response: response)
            // A server has a few loops: a linear search beats hashing them.
            if let k = streams.firstIndex(where: { $0.loop === loop }) {
                streams[k].answers.append(answer)
            } else {
                streams.append((loop, [answer]))
            }
        case .closure(let respond):
            closures.append((respond, response))
        }
    }

    /// Sends every answer added.
    public consuming func send() {
        for (loop, answers) in streams {
            loop.execute { core in
                for a in answers { core.connection(a.connectionID)?.deliver(streamID: a.streamID, a.response) }
            }
        }
        for (respond, response) in closures { respond(response) }
    }
}

/// One answer on its way to a stream of a loop's connection.
struct StreamAnswer: Sendable {
    let connectionID: UInt64
    let streamID: Int32
    let response: ServerResponse
}
