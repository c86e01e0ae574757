import PushAuth
import PushHTTP

/// Certificate-based authentication (docs/specs/apns.md "Certificate authentication"): the TLS
/// client certificate authenticates the connection, so requests carry no `authorization`
/// header (an empty value means none) and there is nothing to renew.
public struct CertificateCredential: APNsCredential {
    public init() {}
    public nonisolated(nonsending) func authorization() async throws -> String { "" }
    public func renew(afterRejecting rejected: String) async -> Bool { false }
}

extension APNsClientCertificate {
    /// What the HTTP client presents in the TLS handshake.
    public var clientCertificate: HTTPClientConfiguration.ClientCertificate {
        switch tls {
        case .pem(let certificateFile, let keyFile): return .init(file: certificateFile, format: .pem(keyFile: keyFile))
        case .pkcs12(let file, let password): return .init(file: file, format: .pkcs12(password: password))
        }
    }
}
