extension HTTPClientError {
    /// The server's certificate chain did not verify: says which trust store was used and how
    /// to pass the right CA. `detail` is the TLS library's reason.
    static func untrustedCertificate(detail: String, caFile: String?) -> HTTPClientError {
        let trusted = caFile.map { "the CA file \($0)" } ?? "the system CA store"
        return .tlsFailed("the server's certificate is not trusted by \(trusted) (\(detail)); pass the CA that "
            + "signed it as caFile / --ca-file (pushlab's dev servers: certs/ca.pem)")
    }
}
