import Foundation

/// A fault injected into one request's answer, in wire terms. The gateway emulator and the
/// metrics collector each turn their fault plan's decision (PushCore `FaultDecision`) into one —
/// with an error answer in their own service's shape — and this type alone carries it out, so
/// both servers delay, reset, drop, stall and send GOAWAY the same way.
public struct ServerFault: Sendable {
    public enum Outcome: Sendable {
        /// RST_STREAM INTERNAL_ERROR (HTTP/1.1: the connection closes).
        case resetStream
        /// Close the whole connection; the stream is reset with it.
        case closeConnection
        /// This answer instead of the handler's, made when it is due (after the delay).
        case answer(@Sendable () -> ServerResponse)
        /// The handler's answer, held this much longer (clients see a hung request).
        case hold(Duration)
    }

    /// When the handler runs if the answer is delayed.
    public enum Handling: Sendable {
        /// At once; only the answer waits (a service that acted on the request but answers late).
        case thenWait
        /// After the wait (the request reaches the service late).
        case afterWait
    }

    /// Wait this long before answering.
    public var delay: Duration
    public var outcome: Outcome?
    /// Send GOAWAY (NO_ERROR) with this debug data when the fault fires; nil: no GOAWAY. Its
    /// last stream id covers this request, so the request is still answered (RFC 9113 §6.8).
    public var goAwayDebugData: [UInt8]?
    public var handling: Handling
    /// After the delay, the answer also waits until this returns (PushCore `FaultHold`s).
    public var hold: (@Sendable () async -> Void)?

    public init(delay: Duration = .zero, outcome: Outcome? = nil, goAwayDebugData: [UInt8]? = nil, handling: Handling = .thenWait,
                hold: (@Sendable () async -> Void)? = nil) {
        self.delay = delay
        self.outcome = outcome
        self.goAwayDebugData = goAwayDebugData
        self.handling = handling
        self.hold = hold
    }

    /// The reply to `request`. `normal` is the handler's own reply; it is called only when the
    /// fault leaves the answer to the handler (a delay, a hold, a GOAWAY), at the time `handling` says.
    public func reply(to request: ServerRequest, normal: @escaping @Sendable () -> HandlerReply) -> HandlerReply {
        let connection = request.connection
        var extra = Duration.zero
        let answer: @Sendable () -> HandlerReply
        switch outcome {
        case .resetStream?:
            return .resetStream(errorCode: .internalError)
        case .closeConnection?:
            connection.close()
            return .resetStream(errorCode: .internalError)
        case .answer(let make)?:
            answer = { .now(make()) }
        case .hold(let hold)?:
            extra = hold
            answer = normal
        case nil:
            answer = normal
        }
        if let goAway = goAwayDebugData { connection.goAway(errorCode: .noError, debugData: goAway) }
        let wait = delay + extra
        if wait == .zero && hold == nil { return answer() }
        let early: HandlerReply? = handling == .thenWait ? answer() : nil
        // A reset cannot wait: it goes out at once, as it would without the fault.
        if let early, case .resetStream = early { return early }
        let hold = self.hold
        return .later {
            if wait > .zero { try? await Task.sleep(for: wait) }
            await hold?()
            // A reset decided after the wait cannot go out from here: it is answered 500.
            return await (early ?? answer()).response() ?? ServerResponse(status: 500)
        }
    }
}
