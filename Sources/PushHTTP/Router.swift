/// Maps (method, path pattern) to a handler. Patterns are `/`-separated segments; a segment
/// `{name}` matches any one non-empty segment and binds it, e.g. `/3/device/{token}` or
/// `/v1/projects/{project}/messages:send`. Exact literal routes win over parameterised ones.
public struct Router: Sendable {
    public enum Match: Sendable {
        case found(RouteHandler, [String: String])
        /// The path exists under another method (405).
        case methodNotAllowed(allowed: [String])
        case notFound
    }

    private struct Route: Sendable {
        let method: String
        let segments: [Segment]
        let handler: RouteHandler
        var parameterCount: Int { segments.reduce(0) { $0 + ($1.isParameter ? 1 : 0) } }
    }

    private enum Segment: Sendable {
        case literal(Substring)
        case parameter(String)
        var isParameter: Bool { if case .parameter = self { return true } else { return false } }
    }

    private var routes: [Route] = []
    /// Routes without parameters keyed by path, then method: one hash lookup answers the common
    /// case without splitting the path (the server's hot path; see benchmarks/results).
    private var literalRoutes: [String: [(method: String, handler: RouteHandler)]] = [:]
    /// Answers requests no route matches (e.g. APNs' `404 {"reason":"BadPath"}`); nil leaves
    /// them to the server's plain 404.
    public var fallback: RouteHandler?
    /// Answers requests whose path exists only under other methods (e.g. APNs'
    /// `405 {"reason":"MethodNotAllowed"}` for any method but POST, a made-up one included), with
    /// the path parameters of the first such route; nil leaves them to the server's plain 405.
    public var methodNotAllowedFallback: RouteHandler?

    public init() {}

    public mutating func add(_ method: String, _ pattern: String, _ handler: @escaping RouteHandler) {
        let segments: [Segment] = pattern.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { s in
            if s.hasPrefix("{") && s.hasSuffix("}") { return .parameter(String(s.dropFirst().dropLast())) }
            return .literal(s)
        }
        routes.append(Route(method: method.uppercased(), segments: segments, handler: handler))
        if !segments.contains(where: \.isParameter),
           literalRoutes[pattern]?.contains(where: { $0.method == method.uppercased() }) != true {
            literalRoutes[pattern, default: []].append((method.uppercased(), handler))
        }
        // Literal routes first so `/admin/pushes` beats `/admin/{anything}`.
        routes.sort { $0.parameterCount < $1.parameterCount }
    }

    public func match(method: String, path: String) -> Match {
        // Literal routes win over parameterised ones anyway, so an exact hit is the answer.
        if let candidates = literalRoutes[path] {
            for candidate in candidates where candidate.method == method { return .found(candidate.handler, [:]) }
        }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        // The request's own method first, so the common case binds parameters once.
        for route in routes where route.method == method && route.segments.count == parts.count {
            if let params = Self.bind(route.segments, parts) { return .found(route.handler, params) }
        }
        var allowed: [String] = []
        var allowedParameters: [String: String]?
        for route in routes where route.method != method && route.segments.count == parts.count {
            guard let params = Self.bind(route.segments, parts) else { continue }
            allowed.append(route.method)
            if allowedParameters == nil { allowedParameters = params }
        }
        if !allowed.isEmpty {
            if let methodNotAllowedFallback { return .found(methodNotAllowedFallback, allowedParameters ?? [:]) }
            return .methodNotAllowed(allowed: allowed)
        }
        if let fallback { return .found(fallback, [:]) }
        return .notFound
    }

    /// The parameters `parts` binds to `segments`, or nil when they do not match.
    private static func bind(_ segments: [Segment], _ parts: ArraySlice<Substring>) -> [String: String]? {
        var params: [String: String] = [:]
        for (segment, part) in zip(segments, parts) {
            switch segment {
            case .literal(let lit): if lit != part { return nil }
            case .parameter(let name):
                if part.isEmpty { return nil }
                params[name] = String(part)
            }
        }
        return params
    }
}
