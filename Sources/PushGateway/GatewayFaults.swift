import Foundation
import PushCore
import PushHTTP

/// Turns the fault plan's decisions (PushCore `FaultInjector`) into what the gateway does on
/// the wire: an error answer with Retry-After, a delay, a stall, a reset stream, a dropped
/// connection, or a GOAWAY after the answer.
struct GatewayFaults: Sendable {
    let injector: FaultInjector

    /// Decides for `request`. Returns nil when the request should be handled normally and at
    /// once; otherwise the reply to give. `normal` computes the ordinary reply (called only when
    /// the fault leaves the answer alone, e.g. latency); `error` renders an error answer in the
    /// service's own shape (APNs reason JSON, Google RPC error).
    func apply(_ request: ServerRequest, normal: () -> HandlerReply,
               error: (_ status: Int, _ reason: String?) -> ServerResponse) -> HandlerReply? {
        let decision = injector.decide(method: request.method, path: request.path, connectionID: request.connection.id)
        if decision.isClean { return nil }
        var delay = decision.delay
        let reply: HandlerReply
        switch decision.outcome {
        case .drop(.stream)?:
            return .resetStream(errorCode: .internalError)
        case .drop(.connection)?:
            request.connection.close()
            return .resetStream(errorCode: .internalError)
        case .status(let status, let retryAfter, let reason)?:
            var response = error(status, reason)
            if let retryAfter { response.headers.set("retry-after", String(retryAfter)) }
            reply = .now(response)
        case .stall(let d)?:
            delay += d
            reply = normal()
        case nil:
            reply = normal()
        }
        let connection = request.connection
        let goAway = decision.goAway
        switch reply {
        case .now(let response) where delay > .zero || goAway:
            let wait = delay
            return .later {
                if wait > .zero { try? await Task.sleep(for: wait) }
                if goAway { connection.goAway(errorCode: .noError, debugData: APNsErrorBody(reason: .shutdown).json) }
                return response
            }
        case .later(let body) where delay > .zero || goAway:
            let wait = delay
            return .later {
                if wait > .zero { try? await Task.sleep(for: wait) }
                let response = await body()
                if goAway { connection.goAway(errorCode: .noError, debugData: APNsErrorBody(reason: .shutdown).json) }
                return response
            }
        default:
            return reply
        }
    }
}
