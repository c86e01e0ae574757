import Foundation
import PushHTTP

/// A finished image download: the body and where it finally came from.
public struct ImageDownload: Sendable {
    public var finalURL: String
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// Every URL requested, the first one first.
    public var redirectChain: [String]
}

/// Downloads a push image the way iOS lets the extension do it (issue 7 item 3): https only
/// unless App Transport Security allows arbitrary loads, redirects followed here one hop at a
/// time (the transport follows none) so that an http hop is refused *before* it is fetched,
/// at most `maxBytes` (the transport aborts the transfer as soon as it passes the limit), and
/// and a deadline the caller sets (the NSE: the SDK's resource timeout).
public struct ImageFetcher: Sendable {
    public var transport: any HTTPTransport
    public var allowArbitraryLoads: Bool
    public var maxRedirects: Int
    public var maxBytes: Int

    /// 10 MB: iOS's limit for an image attachment (docs/specs/device-side.md §2).
    public static let attachmentLimit = 10 * 1024 * 1024

    public init(transport: any HTTPTransport, allowArbitraryLoads: Bool = false, maxRedirects: Int = 10,
                maxBytes: Int = ImageFetcher.attachmentLimit) {
        self.transport = transport
        self.allowArbitraryLoads = allowArbitraryLoads
        self.maxRedirects = maxRedirects
        self.maxBytes = maxBytes
    }

    /// Fetches `url`. `remaining` gives the real time left before the deadline, asked before
    /// each hop; `onHop` reports each request for the timeline.
    public func fetch(_ url: String, remaining: @Sendable () -> Duration,
                      onHop: @Sendable (String) -> Void = { _ in }) async -> Result<ImageDownload, ImageDropReason> {
        guard let first = URL(string: url), let scheme = first.scheme?.lowercased(), first.host != nil else {
            return .failure(.invalidURL(url))
        }
        guard scheme == "https" || (scheme == "http" && allowArbitraryLoads) else {
            return .failure(scheme == "http" ? .insecureURL(url) : .invalidURL(url))
        }
        var current = first
        var chain: [String] = []
        for _ in 0...maxRedirects {
            chain.append(current.absoluteString)
            onHop(current.absoluteString)
            let left = remaining()
            guard left > .zero else { return .failure(.timedOut(afterMs: 0)) }
            let request = HTTPRequest(method: "GET", url: current.absoluteString, headers: ["Accept": "image/*"],
                                      timeout: left, maxResponseBodyBytes: maxBytes, maxRedirects: 0)
            let response: HTTPResponse
            do {
                response = try await transport.send(request)
            } catch let error as HTTPClientError {
                return .failure(ImageFetcher.reason(for: error, deadline: left))
            } catch is CancellationError {
                return .failure(.cancelled)
            } catch {
                return .failure(.networkError("\(error)"))
            }
            if Task.isCancelled { return .failure(.cancelled) }
            guard [301, 302, 303, 307, 308].contains(response.status) else {
                return .success(ImageDownload(finalURL: current.absoluteString, status: response.status,
                                              headers: response.headers, body: response.body, redirectChain: chain))
            }
            guard let location = response.headers["location"],
                  let next = URL(string: location, relativeTo: current)?.absoluteURL else {
                return .failure(.redirectWithoutLocation(status: response.status))
            }
            let nextScheme = next.scheme?.lowercased() ?? ""
            guard nextScheme == "https" || (nextScheme == "http" && allowArbitraryLoads) else {
                return .failure(nextScheme == "http"
                    ? .insecureRedirect(from: current.absoluteString, to: next.absoluteString)
                    : .invalidURL(next.absoluteString))
            }
            current = next
        }
        return .failure(.tooManyRedirects(limit: maxRedirects))
    }

    static func reason(for error: HTTPClientError, deadline: Duration) -> ImageDropReason {
        switch error {
        case .timedOut: return .timedOut(afterMs: deadline.milliseconds)
        case .cancelled, .shutDown: return .cancelled
        case .responseTooLarge(let limit): return .tooLarge(limit: limit)
        case .tooManyRedirects(let limit): return .tooManyRedirects(limit: limit)
        case .tlsFailed(let why): return .tlsFailed(why)
        case .invalidURL(let url): return .invalidURL(url)
        case .connectFailed, .protocolError: return .networkError(error.description)
        }
    }
}
