/// Maps (method, path pattern) to a handler. Patterns are `/`-separated segments; a segment
/// `{name}` matches any one non-empty segment and binds it, e.g. `/3/device/{token}` or
/// `/v1/projects/{project}/messages:send`. Exact literal routes win over parameterised ones.
public struct Router: Sendable {
    public enum Match: Sendable {
        case found(RouteHandler, PathParameters)
        /// The path exists under another method (405).
        case methodNotAllowed(allowed: [String])
        case notFound
    }

    private struct Route: Sendable {
        let method: String
        let segments: [Segment]
        let handler: RouteHandler
        /// Counted once, when the route is added (`add` compares it with every route's).
        let parameterCount: Int
    }

    private enum Segment: Sendable {
        case literal([UInt8])
        case parameter(String)
        var isParameter: Bool { if case .parameter = self { return true } else { return false } }
    }

    private var routes: [Route] = []
    /// Routes without parameters keyed by path, then method: one hash lookup answers the common
    /// case without splitting the path (the server's hot path; see benchmarks/results).
    private var literalRoutes: [String: [(method: String, handler: RouteHandler)]] = [:]
    /// The UTF-8 lengths of the literal routes' paths (bit n: some literal path is n bytes long,
    /// lengths from 64 on share bit 63). A path of another length skips the hash lookup: hashing
    /// an APNs path (74 bytes) for the table that cannot hold it cost more than the match.
    private var literalLengths: UInt64 = 0
    /// The routes with parameters, per method, in `routes`' order: once the literal table has
    /// answered, only these can match a path that starts with `/`. Walking every route and
    /// comparing its method cost the FCM route 3% of the gateway's CPU (twenty-odd routes on
    /// the Google host; benchmarks/results/gateway.md).
    private var parameterRoutes: [(method: String, routes: [Route])] = []
    /// Answers requests no route matches (e.g. APNs' `404 {"reason":"BadPath"}`); nil leaves
    /// them to the server's plain 404.
    public var fallback: RouteHandler?
    /// Answers requests whose path exists only under other methods (e.g. APNs'
    /// `405 {"reason":"MethodNotAllowed"}` for any method but POST, a made-up one included), with
    /// the path parameters of the first such route; nil leaves them to the server's plain 405.
    public var methodNotAllowedFallback: RouteHandler?

    public init() {}

    public mutating func add(_ method: String, _ pattern: String, _ handler: @escaping RouteHandler) {
        let segments = Self.segments(of: pattern)
        let method = method.uppercased()
        let count = segments.reduce(0) { $0 + ($1.isParameter ? 1 : 0) }
        let route = Route(method: method, segments: segments, handler: handler, parameterCount: count)
        if count == 0, literalRoutes[pattern]?.contains(where: { $0.method == method }) != true {
            literalRoutes[pattern, default: []].append((method, handler))
            literalLengths |= Self.lengthBit(pattern.utf8.count)
        }
        // Fewer parameters first so `/admin/pushes` beats `/admin/{anything}`; among routes with
        // as many, the order they were added in. Inserted in place, so building a router stays
        // linear in its routes (no sort of the whole table per add).
        routes.insert(route, at: routes.firstIndex { $0.parameterCount > count } ?? routes.endIndex)
        if count > 0 {
            if !parameterRoutes.contains(where: { $0.method == method }) { parameterRoutes.append((method, [])) }
            let group = parameterRoutes.firstIndex { $0.method == method }!
            let list = parameterRoutes[group].routes
            parameterRoutes[group].routes.insert(route, at: list.firstIndex { $0.parameterCount > count } ?? list.endIndex)
        }
    }

    /// The pattern's components after its first `/`, separated by `/` (empty ones count): a
    /// component `{name}` is a parameter, any other a literal. Read on the UTF-8 bytes, as `fits`
    /// matches them.
    private static func segments(of pattern: String) -> [Segment] {
        let slash = UInt8(ascii: "/")
        var pattern = pattern
        return pattern.withUTF8 { bytes in
            guard var start = bytes.firstIndex(of: slash).map({ $0 + 1 }) else { return [] }
            var segments: [Segment] = []
            while true {
                var end = start
                while end < bytes.count, bytes[end] != slash { end += 1 }
                let component = UnsafeBufferPointer(rebasing: bytes[start..<end])
                if component.first == UInt8(ascii: "{"), component.last == UInt8(ascii: "}"), component.count >= 2 {
                    segments.append(.parameter(String(decoding: UnsafeBufferPointer(rebasing: component.dropFirst().dropLast()), as: UTF8.self)))
                } else {
                    segments.append(.literal(Array(component)))
                }
                if end == bytes.count { return segments }
                start = end + 1
            }
        }
    }

    public func match(method: String, path: String) -> Match {
        if let found = find(method: method, path: path) { return found }
        // RFC 9110 §9.3.2: HEAD is GET without the content, and every general-purpose server
        // supports it. Without a HEAD route, the GET route answers; both HTTP sessions leave
        // the body out of HEAD answers.
        if method == "HEAD", let found = find(method: "GET", path: path) { return found }
        var path = path
        return path.withUTF8 { bytes in
            var allowed: [String] = []
            var allowedParameters: PathParameters?
            for route in routes where route.method != method {
                guard Self.fits(route.segments, bytes) else { continue }
                allowed.append(route.method)
                if allowedParameters == nil { allowedParameters = Self.parameters(route, bytes) }
            }
            if !allowed.isEmpty {
                if let methodNotAllowedFallback { return .found(methodNotAllowedFallback, allowedParameters ?? PathParameters()) }
                return .methodNotAllowed(allowed: allowed)
            }
            if let fallback { return .found(fallback, PathParameters()) }
            return .notFound
        }
    }

    /// The route for exactly `method` and `path`, with its parameters.
    private func find(method: String, path: String) -> Match? {
        // Literal routes win over parameterised ones anyway, so an exact hit is the answer.
        if literalLengths & Self.lengthBit(path.utf8.count) != 0, let candidates = literalRoutes[path] {
            for candidate in candidates where candidate.method == method { return .found(candidate.handler, PathParameters()) }
        }
        // Matched byte by byte on the path's UTF-8: the hot path allocates nothing
        // but the parameter values of the route that matches (benchmarks/results/gateway.md).
        var path = path
        return path.withUTF8 { bytes in
            // A literal route matches a path that starts with `/` only when the path is its
            // pattern, which the table above answered; the others are tried in order.
            if bytes.first == UInt8(ascii: "/") {
                guard let group = parameterRoutes.first(where: { $0.method == method }) else { return nil }
                for route in group.routes where Self.fits(route.segments, bytes) {
                    return .found(route.handler, Self.parameters(route, bytes))
                }
                return nil
            }
            for route in routes where route.method == method {
                if Self.fits(route.segments, bytes) { return .found(route.handler, Self.parameters(route, bytes)) }
            }
            return nil
        }
    }

    /// Whether `path` matches `segments`. The path's components are what follows its first `/`,
    /// separated by `/`; empty ones count (so `/3/device/` has an empty third component, which no
    /// parameter accepts). The last segment must end the path; every other one must be followed
    /// by a `/`.
    private static func fits(_ segments: [Segment], _ path: UnsafeBufferPointer<UInt8>) -> Bool {
        let slash = UInt8(ascii: "/")
        guard let firstSlash = path.firstIndex(of: slash) else { return segments.isEmpty }
        guard !segments.isEmpty else { return false }
        var start = firstSlash + 1
        let last = segments.count - 1
        for index in 0...last {
            var end = start
            while end < path.count, path[end] != slash { end += 1 }
            if (index == last) != (end == path.count) { return false }
            switch segments[index] {
            case .literal(let literal):
                guard literal.count == end - start else { return false }
                for offset in literal.indices where literal[offset] != path[start + offset] { return false }
            case .parameter:
                if end == start { return false }
            }
            start = end + 1
        }
        return true
    }

    @inline(__always)
    private static func lengthBit(_ length: Int) -> UInt64 { 1 << UInt64(min(length, 63)) }

    /// The values `path` binds to `route`'s parameters; `path` fits the route. One parameter (the
    /// APNs and FCM routes) is kept inline, more go into a dictionary (a later segment of a
    /// repeated name wins).
    private static func parameters(_ route: Route, _ path: UnsafeBufferPointer<UInt8>) -> PathParameters {
        guard route.parameterCount > 0 else { return PathParameters() }
        let slash = UInt8(ascii: "/")
        var values: [String: String] = [:]
        var start = path.firstIndex(of: slash)! + 1
        for segment in route.segments {
            var end = start
            while end < path.count, path[end] != slash { end += 1 }
            if case .parameter(let name) = segment {
                let value = String(decoding: UnsafeBufferPointer(rebasing: path[start..<end]), as: UTF8.self)
                if route.parameterCount == 1 { return PathParameters(name: name, value: value) }
                values[name] = value
            }
            start = end + 1
        }
        return PathParameters(values)
    }
}
