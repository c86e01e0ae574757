/// Routes a complete request and runs its handler; shared by the HTTP/2 and HTTP/1.1 sides so
/// both versions behave alike. Loop thread only.
struct RequestDispatcher {
    enum Outcome {
        case respond(ServerResponse)
        case reset(errorCode: UInt32)
        /// A `.later` or `.callback` handler is running; its response arrives through
        /// `ServerConnection.deliver`.
        case pending
    }

    let router: Router
    unowned let loop: ServerEventLoop

    func dispatch(_ request: consuming ServerRequest) -> Outcome {
        let route = router.match(method: request.method, path: request.path)
        return dispatch(request, route: route)
    }

    /// Runs the handler `route` names for `request` (`route` is what `router` matched for the
    /// request's method and path, e.g. remembered by `LastRoute`).
    func dispatch(_ request: consuming ServerRequest, route: Router.Match) -> Outcome {
        // Mutated in place: `var request = request` here copied every field (a retain and a
        // release each) on every request.
        switch route {
        case .notFound:
            return .respond(.text(404, "no route for \(request.method) \(request.path)\n"))
        case .methodNotAllowed(let allowed):
            // RFC 9110 §15.5.6: a 405 lists the methods the target supports.
            var response = ServerResponse.text(405, "\(request.method) is not allowed on \(request.path)\n")
            response.headers.set("allow", allowed.joined(separator: ", "))
            return .respond(response)
        case .found(let handler, let parameters):
            request.pathParameters = parameters
            let reply: HandlerReply
            do {
                reply = try handler(request)
            } catch {
                return .respond(.text(500, "internal server error\n"))
            }
            switch reply {
            case .now(let response):
                return .respond(response)
            case .resetStream(let code):
                return .reset(errorCode: code.rawValue)
            case .later(let work):
                let loop = self.loop
                let connectionID = request.connection.id
                let streamID = request.streamID
                Task.detached {
                    let response = await work()
                    loop.execute { core in core.connection(connectionID)?.deliver(streamID: streamID, response) }
                }
                return .pending
            case .callback(let start):
                start(CallbackResponder(loop: loop, connectionID: request.connection.id, streamID: request.streamID))
                return .pending
            }
        }
    }
}

/// The route a connection's last request matched, for the next request with the same method and
/// path: a connection's requests mostly repeat their target (FCM's `messages:send` for one
/// project, a sender pushing to one device, h2load's one URL), and matching it again cost a hash
/// of the path or a walk of the parameterised routes. The
/// router never changes while the server runs, so the match for equal method and path is the
/// same (`ServerRouteReuseTests` checks each answer against the router's own). The HTTP/2
/// session reuses a repeated path's string, so the comparison is a pointer check.
struct LastRoute {
    private var method = ""
    private var path = ""
    private var route: Router.Match?

    mutating func match(_ router: Router, method: String, path: String) -> Router.Match {
        if let route, self.path == path, self.method == method { return route }
        let found = router.match(method: method, path: path)
        self.method = method
        self.path = path
        route = found
        return found
    }
}
