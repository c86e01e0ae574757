import Foundation

/// Why a client exchange failed before a response arrived.
public enum HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidURL(String)
    case connectFailed(String)
    case tlsFailed(String)
    case timedOut(after: Duration)
    case cancelled
    case responseTooLarge(limit: Int)
    case tooManyRedirects(limit: Int)
    case protocolError(String)
    case shutDown

    public var description: String {
        switch self {
        case .invalidURL(let url): return "invalid URL '\(url)'"
        case .connectFailed(let why): return "could not connect: \(why)"
        case .tlsFailed(let why): return "TLS failed: \(why)"
        case .timedOut(let after): return "timed out after \(after)"
        case .cancelled: return "cancelled"
        case .responseTooLarge(let limit): return "response body exceeded \(limit) bytes; transfer aborted"
        case .tooManyRedirects(let limit): return "more than \(limit) redirects"
        case .protocolError(let why): return "protocol error: \(why)"
        case .shutDown: return "client is shut down"
        }
    }
}
