extension ClientInbox {
    /// One hop through the loop behind this inbox: queues `request` and waits for the loop's
    /// answer; cancelling the calling task cancels the exchange (`HTTPClientError.cancelled`).
    /// Runs on the caller's executor, so a caller on the loop's executor stays there.
    nonisolated(nonsending) func exchange(_ request: HTTPRequest, timeout: Duration) async throws -> HTTPResponse {
        let id = nextID()
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { continuation in
                submit(TransferSubmission(id: id, request: request, timeout: timeout, continuation: continuation))
            }
        } onCancel: {
            cancel(id: id)
        }
    }

    /// Asks the loop to stop (failing what it never saw with `.shutDown`) and waits until it
    /// has finished.
    func stop(abortInFlight: Bool) async {
        for submission in beginStop(abortInFlight ? .abortInFlight : .finishInFlight) {
            submission.continuation.resume(throwing: HTTPClientError.shutDown)
        }
        await waitUntilFinished()
    }

    /// A client was dropped without `shutdown()`: abort what is left.
    func abandon() {
        for submission in beginStop(.abortInFlight) {
            submission.continuation.resume(throwing: HTTPClientError.shutDown)
        }
    }
}
