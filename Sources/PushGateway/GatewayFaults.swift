import Foundation
import PushCore
import PushHTTP

/// The gateway's fault plan (PushCore `FaultInjector`) as PushHTTP `ServerFault`s: an error
/// answer in the service's own shape (APNs reason JSON, Google RPC error) with Retry-After, and
/// a GOAWAY after the answer carrying APNs's `Shutdown` reason. A delayed push is acted on at
/// once and answered late, as a slow APNs would.
struct GatewayFaults: Sendable {
    let injector: FaultInjector

    /// Decides for `request`. Returns nil when the request should be handled normally and at
    /// once; otherwise the reply to give. `normal` computes the ordinary reply (called only when
    /// the fault leaves the answer alone, e.g. latency); `error` renders an error answer.
    func apply(_ request: ServerRequest, normal: @escaping @Sendable () -> HandlerReply,
               error: @escaping @Sendable (_ status: Int, _ reason: String?) -> ServerResponse) -> HandlerReply? {
        let decision = injector.decide(method: request.method, path: request.path, connectionID: request.connection.id)
        if decision.isClean { return nil }
        var fault = ServerFault(delay: decision.delay, goAwayDebugData: decision.goAway ? APNsErrorBody(reason: .shutdown).json : nil)
        let holds = decision.holds
        if !holds.isEmpty { fault.hold = { for hold in holds { await hold.wait() } } }
        switch decision.outcome {
        case .drop(.stream)?: fault.outcome = .resetStream
        case .drop(.connection)?: fault.outcome = .closeConnection
        case .status(let status, let retryAfter, let reason)?:
            fault.outcome = .answer {
                var response = error(status, reason)
                if let retryAfter { response.headers.set("retry-after", String(retryAfter)) }
                return response
            }
        case .stall(let hold)?: fault.outcome = .hold(hold)
        case nil: break
        }
        return fault.reply(to: request, normal: normal)
    }
}
