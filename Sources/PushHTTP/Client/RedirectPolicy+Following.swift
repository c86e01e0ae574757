extension RedirectPolicy {
    /// Sends `request` through `exchange` (one hop each), following redirects as `nextRequest`
    /// decides, within `timeout` overall; the response carries the chain of URLs visited.
    /// The transports call it only after their first hop came back as a redirect, so plain
    /// requests pay nothing for it. The hops run on the caller's executor, as the first did.
    nonisolated(nonsending) static func follow(from first: HTTPResponse, of request: HTTPRequest, timeout: Duration,
                                               exchange: nonisolated(nonsending) (HTTPRequest, Duration) async throws -> HTTPResponse) async throws -> HTTPResponse {
        // The first hop began about `timings.total` ago.
        let deadline = ContinuousClock.now + timeout - first.timings.total
        var response = first
        var hop = request
        var chain = [request.url]
        while let next = nextRequest(after: response, for: hop) {
            guard chain.count <= request.maxRedirects else { throw HTTPClientError.tooManyRedirects(limit: request.maxRedirects) }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { throw HTTPClientError.timedOut(after: timeout) }
            chain.append(next.url)
            hop = next
            do {
                response = try await exchange(hop, remaining)
            } catch HTTPClientError.timedOut {
                throw HTTPClientError.timedOut(after: timeout)
            }
        }
        response.redirectChain = chain
        return response
    }
}
