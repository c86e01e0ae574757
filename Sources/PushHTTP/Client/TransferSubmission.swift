/// One HTTP exchange (a single hop: redirects are followed above, in `HTTPClient`) handed to
/// the loop thread. `continuation` is resumed exactly once, by whoever removes the submission
/// from the inbox or the loop's active set.
///
/// A class, allocated once per exchange: the submission passes through the inbox, the loop's
/// buffers, the warm-up gate and its transfer, and as a struct (an `HTTPRequest` of four
/// reference-counted fields and more) every one of those hand-overs copied and retained each
/// field (`TransferSubmissionVwcp` in the profiles of benchmarks/results/transport-client.md);
/// a reference is one retain.
final class TransferSubmission: Sendable {
    let id: UInt64
    let request: HTTPRequest
    let timeout: Duration
    let continuation: UnsafeContinuation<HTTPResponse, any Error>

    init(id: UInt64, request: HTTPRequest, timeout: Duration, continuation: UnsafeContinuation<HTTPResponse, any Error>) {
        self.id = id
        self.request = request
        self.timeout = timeout
        self.continuation = continuation
    }
}
