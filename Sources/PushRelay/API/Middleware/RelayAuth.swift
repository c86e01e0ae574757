import PushHTTP

/// The relay's API-key check, one per route kind (docs/relay.md "API keys"): throws the
/// refusal (401 no or unknown key, 403 another app's key or not an admin key, 503 when the key
/// store cannot be read) or hands the scope, and the app, to the route in its context.
struct RelayAuth: AsyncMiddleware {
    enum Requirement: Sendable {
        /// Any valid key (a push's status checks the key against the push's app itself).
        case anyKey
        /// A key for the app in the path (`{app}`).
        case app
        /// An admin key.
        case admin
        /// An admin key if `metrics.require_admin_key`, else none (`/metrics`).
        case metricsAdmin
        /// gorush's routes: the app's key as a bearer header or in the path (`{key}`), or none
        /// on a relay with `gorush.unauthenticated`.
        case gorush
    }

    let requirement: Requirement
    let service: RelayService

    func handle(_ request: ServerRequest, context: RelayRequestContext,
                next: @escaping AsyncResponder<RelayRequestContext>) async throws -> ServerResponse {
        var context = context
        switch requirement {
        case .anyKey:
            context.scope = try await authenticate(request)
        case .app:
            (context.scope, context.app) = try await authorizedApp(request)
        case .admin:
            context.scope = try await requireAdmin(request)
        case .metricsAdmin:
            if service.config.metrics.requireAdminKey { context.scope = try await requireAdmin(request) }
        case .gorush:
            context.app = try await gorushApp(request)
        }
        return try await next(request, context)
    }

    /// The bearer key's scope; throws 401 when missing or unknown, 503 when the key store
    /// cannot be read (`APIError.keyLookupFailed`).
    func authenticate(_ request: ServerRequest) async throws -> APIKeyScope {
        guard let header = request.headers["authorization"] else { throw APIError.unauthorized("no API key") }
        guard let key = BearerAuthorization.token(in: header) else { throw APIError.unauthorized("the Authorization header is not 'Bearer <key>'") }
        guard let scope = try await scope(ofKey: String(key)) else { throw APIError.unauthorized("unknown or revoked API key") }
        return scope
    }

    private func scope(ofKey key: String) async throws -> APIKeyScope? {
        do { return try await service.keys.scope(ofKey: key) } catch { throw APIError.keyLookupFailed(error) }
    }

    /// The app named in the path, if the key may use it.
    private func authorizedApp(_ request: ServerRequest) async throws -> (APIKeyScope, RelayApp) {
        let scope = try await authenticate(request)
        let name = request.pathParameters["app"] ?? ""
        guard let app = service.config.app(named: name) else {
            // Same answer for unknown and foreign apps to app-scoped keys: no app-name probing.
            if case .app = scope { throw forbidden(name) }
            throw unknownApp(name)
        }
        guard scope.allows(app: app.name) else { throw forbidden(name) }
        return (scope, app)
    }

    private func requireAdmin(_ request: ServerRequest) async throws -> APIKeyScope {
        let scope = try await authenticate(request)
        guard case .admin = scope else {
            throw APIError(403, "forbidden", field: "header Authorization", "this route needs an admin key",
                           fix: "make one with 'pushlab relay keys create --admin'")
        }
        return scope
    }

    /// The app, if the request may use it: bearer key, path key, or unauthenticated staging.
    private func gorushApp(_ request: ServerRequest) async throws -> RelayApp {
        let name = request.pathParameters["app"] ?? ""
        if let key = request.pathParameters["key"] {
            guard let scope = try await scope(ofKey: key) else { throw APIError.unauthorized("unknown or revoked API key in the path") }
            guard let app = service.config.app(named: name), scope.allows(app: name) else {
                throw APIError(403, "forbidden", field: "path app", "this API key is not for app '\(name)'", fix: "use the app's own key")
            }
            return app
        }
        if service.config.gorush.unauthenticated, request.headers["authorization"] == nil {
            guard let app = service.config.app(named: name) else { throw unknownApp(name) }
            return app
        }
        return try await authorizedApp(request).1
    }

    private func forbidden(_ name: String) -> APIError {
        APIError(403, "forbidden", field: "path app", "this API key is not for app '\(name)'", fix: "use a key made with 'pushlab relay keys create --app \(name)'")
    }

    private func unknownApp(_ name: String) -> APIError {
        APIError.unknownApp(name, known: service.config.apps.map(\.name))
    }
}
