import PushCore

/// One answered attempt, as the retry loop sees it.
public struct RetryStep<Result: Sendable>: Sendable {
    public var result: Result
    public var retryability: Retryability
    public var retryAfter: Duration?
    public init(_ result: Result, retryability: Retryability, retryAfter: Duration? = nil) {
        self.result = result
        self.retryability = retryability
        self.retryAfter = retryAfter
    }
}
