import Foundation

/// Which request follows a redirect response (RFC 9110 §15.4), decided in Swift rather than by
/// libcurl so the client can record every hop.
enum RedirectPolicy {
    /// The next hop, or nil when `response` is not a redirect to follow.
    static func nextRequest(after response: HTTPResponse, for request: HTTPRequest) -> HTTPRequest? {
        switch response.status {
        case 301, 302, 303, 307, 308: break
        default: return nil
        }
        guard request.maxRedirects > 0, let location = response.headers["location"], !location.isEmpty,
              let base = URL(string: request.url), let target = URL(string: location, relativeTo: base)?.absoluteURL
        else { return nil }
        var next = request
        next.url = target.absoluteString
        // 303 always, and 301/302 after a POST (what every browser and curl do), switch to GET.
        if response.status == 303 && request.method.uppercased() != "HEAD"
            || (response.status == 301 || response.status == 302) && request.method.uppercased() == "POST" {
            next.method = "GET"
            next.body = []
            next.headers.remove("content-type")
            next.headers.remove("content-length")
        }
        // Credentials go only to the origin they were meant for.
        if target.host != base.host || target.port != base.port || target.scheme != base.scheme {
            next.headers.remove("authorization")
            next.headers.remove("cookie")
        }
        return next
    }
}
