import CPushLab
import Foundation

/// A private key loaded from PEM. Its `description` names the algorithm only.
public struct PrivateKey: Sendable, CustomStringConvertible {
    let key: OpenSSLKey
    public let algorithm: KeyAlgorithm

    init(key: OpenSSLKey) {
        self.key = key
        algorithm = key.algorithm
    }

    /// Parses a PEM private key (PKCS#8 `PRIVATE KEY`, or traditional `EC PRIVATE KEY` /
    /// `RSA PRIVATE KEY`). `source` names where it came from, for error messages.
    public init(pem: [UInt8], source: String) throws(KeyLoadError) {
        for block in try PEMDocument.blocks(in: pem, source: source) {
            switch block.label {
            case "EC PARAMETERS":
                continue  // `openssl ecparam -genkey` writes the curve before the key
            case "PRIVATE KEY", "EC PRIVATE KEY", "RSA PRIVATE KEY":
                if block.isLegacyEncrypted { throw .encrypted(source: source) }
                let parsed = block.der.withUnsafeBufferPointer { cpl_private_key_from_der($0.baseAddress, $0.count) }
                guard let parsed else {
                    throw .corrupt(source: source, detail: "the key's DER structure does not parse; the file may be cut short or edited")
                }
                self.init(key: OpenSSLKey(parsed))
                return
            default:
                throw PrivateKey.misplacedBlockError(label: block.label, source: source)
            }
        }
        throw .notPEM(source: source)
    }

    /// Reads and parses a PEM private key file.
    public init(contentsOfFile path: String) throws(KeyLoadError) {
        try self.init(pem: try readKeyFile(path), source: path)
    }

    /// A fresh P-256 key (tests; the gateway's "unknown key" cases).
    public static func generateP256() -> PrivateKey {
        guard let pointer = cpl_generate_p256() else { fatalError("OpenSSL could not generate a P-256 key") }
        return PrivateKey(key: OpenSSLKey(pointer))
    }

    /// A fresh RSA key (tests).
    public static func generateRSA(bits: Int = 2048) -> PrivateKey {
        guard let pointer = cpl_generate_rsa(UInt32(bits)) else { fatalError("OpenSSL could not generate an RSA key") }
        return PrivateKey(key: OpenSSLKey(pointer))
    }

    /// The public half, as its own key object (what a verifier holds).
    public var publicKey: PublicKey {
        guard let der = key.publicKeyDER,
              let pointer = der.withUnsafeBufferPointer({ cpl_public_key_from_der($0.baseAddress, $0.count) })
        else { fatalError("OpenSSL could not export the public half of a loaded key") }
        return PublicKey(key: OpenSSLKey(pointer))
    }

    public var description: String { "PrivateKey(\(algorithm))" }

    static func misplacedBlockError(label: String, source: String) -> KeyLoadError {
        switch label {
        case "CERTIFICATE", "TRUSTED CERTIFICATE", "X509 CERTIFICATE":
            return .certificateInsteadOfKey(source: source)
        case "ENCRYPTED PRIVATE KEY":
            return .encrypted(source: source)
        case "PUBLIC KEY", "RSA PUBLIC KEY":
            return .publicKeyInsteadOfPrivateKey(source: source)
        case "PRIVATE KEY", "EC PRIVATE KEY", "RSA PRIVATE KEY":
            return .privateKeyInsteadOfPublicKey(source: source)
        default:
            return .unexpectedPEMBlock(source: source, label: label)
        }
    }
}
