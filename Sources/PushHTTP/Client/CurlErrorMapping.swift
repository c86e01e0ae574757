import CPushLab

/// Turns a failed libcurl transfer into an `HTTPClientError` a user can act on.
enum CurlErrorMapping {
    static func error(for code: CURLcode, url: String, detail: String, exceededLimit: Bool, limit: Int, timeout: Duration,
                      caFile: String?) -> HTTPClientError {
        if exceededLimit { return .responseTooLarge(limit: limit) }
        let text = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        switch code {
        case CURLE_URL_MALFORMAT:
            return .invalidURL(url)
        case CURLE_UNSUPPORTED_PROTOCOL:
            // Both "Protocol "ftp" not supported" (a bad URL) and a reply in no HTTP version
            // libcurl accepts (e.g. an HTTP/2-only server spoken to in HTTP/1.1).
            return text.hasPrefix("Protocol ") ? .invalidURL(url) : .protocolError(text)
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_PROXY:
            return .connectFailed(text)
        case CURLE_OPERATION_TIMEDOUT:
            // The connect deadline (connectTimeout) is a connection problem, not the request's.
            return text.hasPrefix("Connection timed out") || text.hasPrefix("Resolving timed out")
                ? .connectFailed(text) : .timedOut(after: timeout)
        case CURLE_PEER_FAILED_VERIFICATION:
            let trusted = caFile.map { "the CA file \($0)" } ?? "the system CA store"
            return .tlsFailed("the server's certificate is not trusted by \(trusted) (\(text)); pass the CA that "
                + "signed it as caFile / --ca-file (pushlab's dev servers: certs/ca.pem)")
        case CURLE_SSL_CACERT_BADFILE:
            return .tlsFailed("cannot read the CA file \(caFile ?? "(system store)") (\(text)); pass a readable PEM file")
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_ENGINE_NOTFOUND,
             CURLE_USE_SSL_FAILED, CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR,
             CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS:
            return .tlsFailed("handshake failed: \(text)")
        case CURLE_ABORTED_BY_CALLBACK, CURLE_WRITE_ERROR:
            return .protocolError("transfer aborted: \(text)")
        default:
            return .protocolError("\(text) (libcurl error \(code.rawValue))")
        }
    }
}
