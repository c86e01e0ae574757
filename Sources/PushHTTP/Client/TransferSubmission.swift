/// One HTTP exchange (a single hop: redirects are followed above, in `HTTPClient`) handed to
/// the loop thread. `continuation` is resumed exactly once, by whoever removes the submission
/// from the inbox or the loop's active set.
struct TransferSubmission: Sendable {
    let id: UInt64
    let request: HTTPRequest
    let timeout: Duration
    let continuation: UnsafeContinuation<HTTPResponse, any Error>
}
