import PushCore
import PushHTTP

/// Turns what a relay route throws into its answer, in the API's shape: the native JSON
/// (`APIError.response`) or gorush's (`APIError.gorushResponse`, with `x-gorush-version` on every
/// answer). Counts each refusal in `/metrics` under the app in the path.
struct RelayErrorShape: AsyncMiddleware {
    enum Shape: Sendable {
        case native
        case gorush
    }

    let shape: Shape
    let metrics: RelayMetrics

    func handle(_ request: ServerRequest, context: RelayRequestContext,
                next: @escaping AsyncResponder<RelayRequestContext>) async throws -> ServerResponse {
        var response = await answer(app: request.pathParameters["app"] ?? "") { try await next(request, context) }
        if shape == .gorush { response.headers.set("x-gorush-version", "pushlab-relay") }
        return response
    }

    /// `body`'s answer, or the answer to what it threw; a refusal is counted under `app`.
    func answer(app: String, _ body: () async throws -> ServerResponse) async -> ServerResponse {
        do {
            return try await body()
        } catch {
            let refusal = error as? APIError ?? APIError(500, "internal", "\(error)", fix: "see the relay's log")
            if error is APIError { metrics.refused(app: app, status: refusal.status) }
            return shape == .gorush ? refusal.gorushResponse : refusal.response
        }
    }
}
