import PushCore
import PushHTTP

/// What a channel request came back with.
public enum ChannelAnswer<Value: Sendable>: Sendable {
    case success(Value, requestID: String?)
    /// APNs refused: the status, the reason (nil when the body had none) and the request id.
    case rejected(status: Int, reason: ChannelReason?, requestID: String?)
    /// No answer (connection, TLS, timeout).
    case failed(HTTPClientError)
}
