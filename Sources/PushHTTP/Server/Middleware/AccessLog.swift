/// One line per answered request: method, path (no query: it may carry a token), status and
/// how long the handler took. Wrapped around routes like any middleware; `write` gets the line.
public struct AccessLog<Context: RouteContext>: Middleware, AsyncMiddleware {
    public let write: @Sendable (String) -> Void

    public init(_ write: @escaping @Sendable (String) -> Void) {
        self.write = write
    }

    public func handle(_ request: ServerRequest, context: Context, next: @escaping Responder<Context>) throws -> HandlerReply {
        let start = ContinuousClock.now
        let reply = try next(request, context)
        if case .resetStream(let code) = reply {
            write(line(request, status: "reset(\(code.rawValue))", since: start))
            return reply
        }
        let (method, path) = (request.method, request.path)
        return reply.observingResponse { response in
            write(Self.line(method, path, status: String(response.status), since: start))
        }
    }

    public func handle(_ request: ServerRequest, context: Context,
                       next: @escaping AsyncResponder<Context>) async throws -> ServerResponse {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            write(line(request, status: String(response.status), since: start))
            return response
        } catch {
            write(line(request, status: "error", since: start))
            throw error
        }
    }

    private func line(_ request: ServerRequest, status: String, since start: ContinuousClock.Instant) -> String {
        Self.line(request.method, request.path, status: status, since: start)
    }

    static func line(_ method: String, _ path: String, status: String, since start: ContinuousClock.Instant) -> String {
        let elapsed = ContinuousClock.now - start
        let microseconds = elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
        return "\(method) \(path) \(status) \(microseconds)us"
    }
}
