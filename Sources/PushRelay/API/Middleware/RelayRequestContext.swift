import PushHTTP

/// What the relay's middleware found out about a request before its route runs: the API key's
/// scope and, on app routes, the app the key may use (`RelayAuth`).
struct RelayRequestContext: RouteContext {
    var scope: APIKeyScope?
    var app: RelayApp?

    init() {}

    /// The app `RelayAuth` authorized. A route registered without an app requirement that asks
    /// for one is a programming error, answered 500.
    func authorizedApp() throws -> RelayApp {
        guard let app else { throw APIError(500, "internal", "the route has no authorized app", fix: "see the relay's log") }
        return app
    }
}
