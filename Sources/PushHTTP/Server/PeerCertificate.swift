import CPushLab

/// A TLS client's certificate as the server received it: the DER bytes (for the application to
/// read its fields) and whether its chain verified against `clientCertificateCAFile`.
public struct PeerCertificate: Sendable, Hashable {
    public var der: [UInt8]
    /// The chain verified and the certificate is within its validity period.
    public var verified: Bool
    /// OpenSSL's words for a failed verification ("certificate has expired", …); nil when verified.
    public var verificationError: String?

    public init(der: [UInt8], verified: Bool, verificationError: String?) {
        self.der = der
        self.verified = verified
        self.verificationError = verificationError
    }

    /// The certificate of a finished handshake, or nil when the client sent none.
    init?(ssl: OpaquePointer) {
        var der: UnsafeMutablePointer<UInt8>?
        var result = 0
        var reason = [CChar](repeating: 0, count: 256)
        let length = cpl_server_peer_certificate(ssl, &der, &result, &reason, reason.count)
        guard length > 0, let der else { return nil }
        defer { cpl_free(der) }
        self.der = Array(UnsafeBufferPointer(start: der, count: Int(length)))
        verified = result == Int(X509_V_OK)
        verificationError = verified ? nil : String(nulTerminated: reason)
    }
}
