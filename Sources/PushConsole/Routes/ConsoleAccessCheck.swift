import PushGateway
import PushHTTP

/// The access check every console route is behind (`ConsoleAccess`): 403 to peers that are not
/// loopback unless remote use is allowed, and 401 to a request without the access token when
/// there is one. The page's link with `?token=` is answered with the cookie and a redirect to
/// the bare URL, so the token leaves the address bar.
struct ConsoleAccessCheck: Middleware {
    let allowRemote: Bool
    let access: ConsoleAccess?

    func handle(_ request: ServerRequest, context: NoRouteContext, next: @escaping Responder<NoRouteContext>) throws -> HandlerReply {
        if !allowRemote && !AdminAccess.isLoopback(request.connection.remoteAddress) {
            return .now(Console.refusal(403, field: nil, "the console answers loopback clients only (request from \(request.connection.remoteAddress))",
                                        fix: "open it on the machine running pushlab, or start it with --console-remote"))
        }
        if let access {
            switch access.check(request) {
            case .none:
                return .now(Console.refusal(401, field: "header authorization", "the console needs its access token",
                                            fix: "open the console link pushlab printed at start (…/console?token=…), or send 'Authorization: Bearer <token>'"))
            case .invalid(let field):
                return .now(Console.refusal(401, field: field, "wrong console access token",
                                            fix: "use the token pushlab printed at start or the one in --console-token-file"))
            case .valid(let fromQuery):
                if fromQuery, request.method == "GET", request.path == "/console" || request.path == "/console/" {
                    return .now(ServerResponse(status: 303, headers: ["location": "/console", "set-cookie": access.setCookie,
                                                                      "cache-control": "no-store"]))
                }
            }
        }
        return try next(request, context)
    }
}
