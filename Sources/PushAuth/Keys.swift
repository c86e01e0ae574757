import CPushLab
import Foundation

/// What a key is, in words a user recognises. Never includes key material.
public enum KeyAlgorithm: Sendable, Hashable, CustomStringConvertible {
    case p256
    case ec(curve: String)
    case rsa(bits: Int)
    case other

    public var description: String {
        switch self {
        case .p256: return "EC P-256"
        case .ec(let curve): return "EC \(KeyAlgorithm.friendlyCurveName(curve))"
        case .rsa(let bits): return "RSA \(bits)"
        case .other: return "an unsupported key type"
        }
    }

    static func friendlyCurveName(_ curve: String) -> String {
        switch curve {
        case "secp384r1": return "P-384 (secp384r1)"
        case "secp521r1": return "P-521 (secp521r1)"
        case "": return "(unknown curve)"
        default: return curve
        }
    }
}

/// The one owner of an OpenSSL `EVP_PKEY`. It is created once, never mutated, and freed when
/// the last Swift value holding it goes away. OpenSSL 3 allows a provider key to be used for
/// signing/verifying from several threads at once as long as each operation has its own
/// context (the C shim makes a fresh EVP_MD_CTX per call), which is why sharing it is sound.
final class OpenSSLKey: @unchecked Sendable {
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { EVP_PKEY_free(pointer) }

    var algorithm: KeyAlgorithm {
        switch cpl_key_kind_of(pointer) {
        case CPL_KEY_EC:
            var name = [CChar](repeating: 0, count: 64)
            cpl_key_curve_name(pointer, &name, name.count)
            let curve = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return curve == "prime256v1" ? .p256 : .ec(curve: curve)
        case CPL_KEY_RSA:
            return .rsa(bits: Int(cpl_key_bits(pointer)))
        default:
            return .other
        }
    }

    /// DER SubjectPublicKeyInfo of the key's public half.
    var publicKeyDER: [UInt8]? {
        var out: UnsafeMutablePointer<UInt8>?
        let length = cpl_public_key_to_der(pointer, &out)
        guard length > 0, let out else { return nil }
        defer { cpl_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }

    func sign(_ message: [UInt8]) -> [UInt8]? {
        var signature = [UInt8](repeating: 0, count: 1024)  // RSA up to 8192 bits; DER ECDSA ≤ 72
        var length = signature.count
        let ok = message.withUnsafeBufferPointer { m in
            cpl_sign_sha256(pointer, m.baseAddress, m.count, &signature, &length)
        }
        guard ok == 1 else { return nil }
        signature.removeSubrange(length...)
        return signature
    }

    func verify(_ signature: [UInt8], over message: UnsafeBufferPointer<UInt8>) -> Bool {
        signature.withUnsafeBufferPointer { s in
            cpl_verify_sha256(pointer, message.baseAddress, message.count, s.baseAddress, s.count) == 1
        }
    }
}

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

/// Reads a key file, mapping I/O failures to `KeyLoadError.unreadable`.
func readKeyFile(_ path: String) throws(KeyLoadError) -> [UInt8] {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
        throw .unreadable(source: path, detail: "no such file")
    }
    if isDirectory.boolValue { throw .unreadable(source: path, detail: "it is a directory") }
    guard let data = FileManager.default.contents(atPath: path) else {
        throw .unreadable(source: path, detail: "permission denied or I/O error")
    }
    return [UInt8](data)
}
