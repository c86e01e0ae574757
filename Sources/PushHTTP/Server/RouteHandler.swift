/// A route handler. It runs on the server's event-loop thread: keep it quick, or return `.later`.
/// A handler that throws is answered with a 500 and the server lives on.
public typealias RouteHandler = @Sendable (ServerRequest) throws -> HandlerReply
