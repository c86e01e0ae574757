import CPushLab
import Foundation

/// A public key for verification. `pem` re-exports it (public data, safe to print).
public struct PublicKey: Sendable, CustomStringConvertible {
    let key: OpenSSLKey
    public let algorithm: KeyAlgorithm

    init(key: OpenSSLKey) {
        self.key = key
        algorithm = key.algorithm
    }

    /// Parses a PEM `PUBLIC KEY` (SubjectPublicKeyInfo). A private key PEM is refused with
    /// `privateKeyInsteadOfPublicKey` rather than silently derived, so a misplaced secret is noticed.
    public init(pem: [UInt8], source: String) throws(KeyLoadError) {
        for block in try PEMDocument.blocks(in: pem, source: source) {
            guard block.label == "PUBLIC KEY" else {
                if block.label == "EC PARAMETERS" { continue }
                throw PrivateKey.misplacedBlockError(label: block.label, source: source)
            }
            let parsed = block.der.withUnsafeBufferPointer { cpl_public_key_from_der($0.baseAddress, $0.count) }
            guard let parsed else {
                throw .corrupt(source: source, detail: "the public key's DER structure does not parse")
            }
            self.init(key: OpenSSLKey(parsed))
            return
        }
        throw .notPEM(source: source)
    }

    public init(contentsOfFile path: String) throws(KeyLoadError) {
        try self.init(pem: try readKeyFile(path), source: path)
    }

    /// SubjectPublicKeyInfo DER.
    public var der: [UInt8] { key.publicKeyDER ?? [] }

    /// PEM `PUBLIC KEY` text.
    public var pem: String {
        let body = String(decoding: Base64Codec.encode(der, alphabet: Base64Codec.standardAlphabet, pad: true), as: UTF8.self)
        var lines = ["-----BEGIN PUBLIC KEY-----"]
        var rest = Substring(body)
        while !rest.isEmpty {
            lines.append(String(rest.prefix(64)))
            rest = rest.dropFirst(64)
        }
        lines.append("-----END PUBLIC KEY-----")
        return lines.joined(separator: "\n") + "\n"
    }

    public var description: String { "PublicKey(\(algorithm))" }
}
