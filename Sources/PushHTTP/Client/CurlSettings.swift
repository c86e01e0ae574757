import CPushLab
import Foundation

/// The easy-handle options every exchange of one client shares, converted once from
/// `HTTPClientConfiguration` to what libcurl takes (C strings, longs). Owned by the loop.
final class CurlSettings {
    let caFile: String?
    private let caFileC: UnsafeMutablePointer<CChar>?
    private let userAgentC: UnsafeMutablePointer<CChar>
    /// CURLOPT_HTTP_VERSION for the configured protocol mode.
    let httpVersion: Int
    private let verifyPeer: Bool
    private let connectTimeoutMilliseconds: Int
    /// Client certificate options (CURLOPT_SSLCERT, _SSLCERTTYPE, _SSLKEY, _KEYPASSWD), C strings.
    private let clientCertificate: [(CURLoption, UnsafeMutablePointer<CChar>)]
    /// True when the environment names no proxy at all (no `*_proxy` / `*_PROXY` variable).
    /// libcurl reads no_proxy, NO_PROXY, https_proxy, HTTPS_PROXY, all_proxy, ALL_PROXY for
    /// every transfer (each a scan of the whole environment); with none set, saying "no proxy"
    /// up front skips those scans and changes nothing else. With any set, libcurl decides as
    /// before, per transfer.
    private let environmentHasNoProxy: Bool

    init(_ configuration: HTTPClientConfiguration) {
        caFile = configuration.caFile
        caFileC = configuration.caFile.map { strdup($0) }
        userAgentC = strdup(configuration.userAgent)
        switch configuration.protocolMode {
        case .http2: httpVersion = CURL_HTTP_VERSION_2TLS
        case .h2cPriorKnowledge: httpVersion = CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE
        case .http1: httpVersion = CURL_HTTP_VERSION_1_1
        }
        verifyPeer = configuration.verifyPeer
        connectTimeoutMilliseconds = configuration.connectTimeout.roundedUpMilliseconds
        switch configuration.clientCertificate?.format {
        case .pem(let keyFile)?:
            clientCertificate = [(CURLOPT_SSLCERT, strdup(configuration.clientCertificate!.file)),
                                 (CURLOPT_SSLCERTTYPE, strdup("PEM")), (CURLOPT_SSLKEY, strdup(keyFile))]
        case .pkcs12(let password)?:
            clientCertificate = [(CURLOPT_SSLCERT, strdup(configuration.clientCertificate!.file)),
                                 (CURLOPT_SSLCERTTYPE, strdup("P12")), (CURLOPT_KEYPASSWD, strdup(password))]
        case nil:
            clientCertificate = []
        }
        environmentHasNoProxy = !ProcessInfo.processInfo.environment.keys.contains { $0.lowercased().hasSuffix("_proxy") }
    }

    deinit {
        for (_, value) in clientCertificate {
            // The password must not linger in freed memory.
            memset(value, 0, strlen(value))
            free(value)
        }
        free(caFileC)
        free(userAgentC)
    }

    func apply(to easy: UnsafeMutableRawPointer) {
        // Signals are process-wide; a library must not install handlers (libcurl: use
        // CURLOPT_NOSIGNAL in multi-threaded programs).
        cpl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        // Wait for a stream on a connection being set up rather than opening a second one.
        cpl_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1)
        cpl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, httpVersion)
        cpl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, max(connectTimeoutMilliseconds, 1))
        cpl_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, verifyPeer ? 1 : 0)
        cpl_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, verifyPeer ? 2 : 0)
        cpl_easy_setopt_long(easy, CURLOPT_TCP_KEEPALIVE, 1)
        // An HTTP client: an ftp:// or file:// URL is a mistake, not something to fetch.
        cpl_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https")
        if let caFileC { cpl_easy_setopt_string(easy, CURLOPT_CAINFO, caFileC) }
        cpl_easy_setopt_string(easy, CURLOPT_USERAGENT, userAgentC)
        for (option, value) in clientCertificate { cpl_easy_setopt_string(easy, option, value) }
        if environmentHasNoProxy {
            cpl_easy_setopt_string(easy, CURLOPT_PROXY, "")
            cpl_easy_setopt_string(easy, CURLOPT_NOPROXY, "")
        }
    }
}
