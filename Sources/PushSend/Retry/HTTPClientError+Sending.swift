import PushCore
import PushHTTP

extension HTTPClientError {
    /// Whether the request may be sent again. The request got no answer, so it was not
    /// accepted: retrying cannot deliver it twice as far as the client can know
    /// (docs/specs/apns.md: GOAWAY/REFUSED_STREAM/connection failures are retried on a new connection).
    /// TLS and URL problems are configuration errors: retrying gives the same failure.
    var retryability: Retryability {
        switch self {
        case .connectFailed, .timedOut, .protocolError: return .withBackoff
        case .invalidURL, .tlsFailed, .cancelled, .responseTooLarge, .tooManyRedirects, .shutDown: return .never
        }
    }

    /// A short name for results files and history.
    var failureName: String {
        switch self {
        case .invalidURL: return "InvalidURL"
        case .connectFailed: return "ConnectFailed"
        case .tlsFailed: return "TLSFailed"
        case .timedOut: return "TimedOut"
        case .cancelled: return "Cancelled"
        case .responseTooLarge: return "ResponseTooLarge"
        case .tooManyRedirects: return "TooManyRedirects"
        case .protocolError: return "ProtocolError"
        case .shutDown: return "ClientShutDown"
        }
    }
}
