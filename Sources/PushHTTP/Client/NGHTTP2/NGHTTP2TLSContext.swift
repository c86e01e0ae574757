import CPushLab

/// The client's OpenSSL context: ALPN h2, TLS 1.2+, the peer verified against the CA file or
/// the system store. When the CA file cannot be read the context is missing and `failure`
/// says why; every TLS connect then fails with it (as libcurl's client does per request).
final class NGHTTP2TLSContext {
    let context: OpaquePointer?
    let failure: HTTPClientError?

    init(configuration: HTTPClientConfiguration) {
        var error = [CChar](repeating: 0, count: 512)
        context = cpl_h2c_tls_context(configuration.caFile, configuration.verifyPeer ? 1 : 0, &error, error.count)
        if context == nil {
            let why = String(nulTerminated: error)
            failure = .tlsFailed(configuration.caFile.map { "cannot read the CA file \($0) (\(why)); pass a readable PEM file" }
                ?? "cannot load the system CA store (\(why))")
        } else {
            failure = nil
        }
    }

    deinit { if let context { SSL_CTX_free(context) } }
}
