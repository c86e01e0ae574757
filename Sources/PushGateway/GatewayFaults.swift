import Foundation
import PushCore
import PushHTTP

/// The gateway's fault plan (PushCore `FaultInjector`) as middleware around the APNs and FCM
/// routes: each decision becomes a PushHTTP `ServerFault`, with an error answer in the route's
/// own shape (`answer`: APNs reason JSON, Google RPC error) plus Retry-After, and a GOAWAY after
/// the answer carrying APNs's `Shutdown` reason. A delayed push is acted on at once and
/// answered late, as a slow APNs would. Without a plan the routes are added without it
/// (`Optional<GatewayFaults>.none`), so the hot path does not even ask the injector.
struct GatewayFaults: Middleware {
    let injector: FaultInjector
    /// The route's error answer for a fault-plan status and reason (nil: the route's default).
    let answer: @Sendable (_ request: ServerRequest, _ status: Int, _ reason: String?) -> ServerResponse

    func handle(_ request: ServerRequest, context: NoRouteContext, next: @escaping Responder<NoRouteContext>) throws -> HandlerReply {
        let decision = injector.decide(method: request.method, path: request.path, connectionID: request.connection.id)
        if decision.isClean { return try next(request, context) }
        var fault = ServerFault(delay: decision.delay, goAwayDebugData: decision.goAway ? APNsErrorBody(reason: .shutdown).json : nil)
        let holds = decision.holds
        if !holds.isEmpty { fault.hold = { for hold in holds { await hold.wait() } } }
        switch decision.outcome {
        case .drop(.stream)?: fault.outcome = .resetStream
        case .drop(.connection)?: fault.outcome = .closeConnection
        case .status(let status, let retryAfter, let reason)?:
            let answer = self.answer
            fault.outcome = .answer {
                var response = answer(request, status, reason)
                if let retryAfter { response.headers.set("retry-after", String(retryAfter)) }
                return response
            }
        case .stall(let hold)?: fault.outcome = .hold(hold)
        case nil: break
        }
        return fault.reply(to: request) {
            do { return try next(request, context) } catch { return .now(.text(500, "internal server error\n")) }
        }
    }
}
