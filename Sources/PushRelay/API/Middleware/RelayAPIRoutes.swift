import PushHTTP

/// How every relay API route is wrapped, once, when the router is set up: the access log (with
/// `relay --access-log`), the error shape (native or gorush), then the API-key check the route
/// needs. The route is a plain handler of the request and what the middleware found.
struct RelayAPIRoutes: Sendable {
    let service: RelayService
    let shape: RelayErrorShape.Shape
    let accessLog: (@Sendable (String) -> Void)?

    func add(to router: inout Router, _ method: String, _ path: String, _ requirement: RelayAuth.Requirement,
             _ handler: @escaping AsyncResponder<RelayRequestContext>) {
        let chain = accessLog.map { AccessLog<RelayRequestContext>($0) }
            .followed(by: RelayErrorShape(shape: shape, metrics: service.metrics))
            .followed(by: RelayAuth(requirement: requirement, service: service))
        router.add(method, path, through: chain, handler)
    }
}
