/// Behaviour that spans routes (access checks, fault injection, error shapes, access logs),
/// written once and wrapped around the routes that need it when the router is set up —
/// Hummingbird's middleware shape: `handle(request, context, next)`. The route itself stays a
/// plain handler.
///
/// `Middleware` runs on the event-loop thread and sees the `HandlerReply` (so it can answer at
/// once, reset the stream, or let a `.later` reply run), at the cost of one closure call per
/// middleware; the composition is made once, at setup (`Router.add(_:_:through:_:)`), and a
/// route added without one is called directly. `AsyncMiddleware` runs inside the route's
/// `.later` work, for checks that wait (an API key looked up in a store).
public protocol Middleware<Context>: Sendable {
    associatedtype Context: RouteContext
    func handle(_ request: ServerRequest, context: Context, next: @escaping Responder<Context>) throws -> HandlerReply
    /// `handler` behind this middleware, composed once (the default: one closure around `handle`).
    func responder(_ handler: @escaping Responder<Context>) -> Responder<Context>
}

/// Like `Middleware`, around handlers that answer later (on the Swift concurrency pool).
public protocol AsyncMiddleware<Context>: Sendable {
    associatedtype Context: RouteContext
    func handle(_ request: ServerRequest, context: Context,
                next: @escaping AsyncResponder<Context>) async throws -> ServerResponse
    /// `handler` behind this middleware, composed once (the default: one closure around `handle`).
    func responder(_ handler: @escaping AsyncResponder<Context>) -> AsyncResponder<Context>
}

/// What middleware learns about a request and hands to the next one (e.g. who the caller is).
/// Each request starts from `init()`.
public protocol RouteContext: Sendable {
    init()
}

/// The context of routes whose middleware passes nothing on.
public struct NoRouteContext: RouteContext {
    public init() {}
}

public typealias Responder<Context> = @Sendable (ServerRequest, Context) throws -> HandlerReply
public typealias AsyncResponder<Context> = @Sendable (ServerRequest, Context) async throws -> ServerResponse

/// Two middlewares as one: `outer` sees the request first and the answer last.
public struct MiddlewarePair<Outer: Middleware, Inner: Middleware>: Middleware where Outer.Context == Inner.Context {
    public let outer: Outer
    public let inner: Inner

    public func handle(_ request: ServerRequest, context: Outer.Context, next: @escaping Responder<Outer.Context>) throws -> HandlerReply {
        let inner = self.inner
        return try outer.handle(request, context: context) { request, context in try inner.handle(request, context: context, next: next) }
    }

    /// The responder for `handler` behind both, made once: per request it costs a call per
    /// middleware and allocates nothing of its own.
    public func responder(_ handler: @escaping Responder<Outer.Context>) -> Responder<Outer.Context> {
        outer.responder(inner.responder(handler))
    }
}

/// Two async middlewares as one: `outer` sees the request first and the answer last.
public struct AsyncMiddlewarePair<Outer: AsyncMiddleware, Inner: AsyncMiddleware>: AsyncMiddleware where Outer.Context == Inner.Context {
    public let outer: Outer
    public let inner: Inner

    public func handle(_ request: ServerRequest, context: Outer.Context,
                       next: @escaping AsyncResponder<Outer.Context>) async throws -> ServerResponse {
        try await outer.handle(request, context: context, next: inner.responder(next))
    }

    public func responder(_ handler: @escaping AsyncResponder<Outer.Context>) -> AsyncResponder<Outer.Context> {
        outer.responder(inner.responder(handler))
    }
}

extension Middleware {
    /// `self`, then `inner`, around a route.
    public func followed<Inner: Middleware>(by inner: Inner) -> MiddlewarePair<Self, Inner> where Inner.Context == Context {
        MiddlewarePair(outer: self, inner: inner)
    }

    public func responder(_ handler: @escaping Responder<Context>) -> Responder<Context> {
        { request, context in try self.handle(request, context: context, next: handler) }
    }
}

extension AsyncMiddleware {
    /// `self`, then `inner`, around a route.
    public func followed<Inner: AsyncMiddleware>(by inner: Inner) -> AsyncMiddlewarePair<Self, Inner> where Inner.Context == Context {
        AsyncMiddlewarePair(outer: self, inner: inner)
    }

    public func responder(_ handler: @escaping AsyncResponder<Context>) -> AsyncResponder<Context> {
        { request, context in try await self.handle(request, context: context, next: handler) }
    }
}

extension Router {
    /// A route behind `middleware`: the composition is made here, once.
    public mutating func add<M: Middleware>(_ method: String, _ pattern: String, through middleware: M,
                                            _ handler: @escaping Responder<M.Context>) {
        let responder = middleware.responder(handler)
        add(method, pattern) { request in try responder(request, M.Context()) }
    }

    /// A route that answers later (on the Swift concurrency pool) behind `middleware`; what the
    /// chain throws is answered 500 (an error-shape middleware turns errors into answers first).
    public mutating func add<M: AsyncMiddleware>(_ method: String, _ pattern: String, through middleware: M,
                                                 _ handler: @escaping AsyncResponder<M.Context>) {
        let responder = middleware.responder(handler)
        add(method, pattern) { request in
            .later {
                do { return try await responder(request, M.Context()) } catch { return .text(500, "internal server error\n") }
            }
        }
    }
}

/// A middleware that may be left out (e.g. an access log when none is asked for): `nil` passes
/// the handler itself, with no call of its own.
extension Optional: Middleware where Wrapped: Middleware {
    public func handle(_ request: ServerRequest, context: Wrapped.Context, next: @escaping Responder<Wrapped.Context>) throws -> HandlerReply {
        guard let self else { return try next(request, context) }
        return try self.handle(request, context: context, next: next)
    }

    public func responder(_ handler: @escaping Responder<Wrapped.Context>) -> Responder<Wrapped.Context> {
        self?.responder(handler) ?? handler
    }
}

extension Optional: AsyncMiddleware where Wrapped: AsyncMiddleware {
    public func handle(_ request: ServerRequest, context: Wrapped.Context,
                       next: @escaping AsyncResponder<Wrapped.Context>) async throws -> ServerResponse {
        guard let self else { return try await next(request, context) }
        return try await self.handle(request, context: context, next: next)
    }

    public func responder(_ handler: @escaping AsyncResponder<Wrapped.Context>) -> AsyncResponder<Wrapped.Context> {
        self?.responder(handler) ?? handler
    }
}
