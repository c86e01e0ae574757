import CPushLab
import Foundation

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

    /// Whether the X.509 certificate `der` holds this key's public half. A method, like every
    /// use of `pointer`, so the key is alive for the whole C call: reading `key.pointer` from a
    /// caller's local whose last use that is lets Swift free the key before the call runs.
    func matches(certificateDER der: [UInt8]) -> Bool {
        der.withUnsafeBufferPointer { cpl_x509_matches_key($0.baseAddress, $0.count, pointer) } == 1
    }

    func verify(_ signature: [UInt8], over message: UnsafeBufferPointer<UInt8>) -> Bool {
        signature.withUnsafeBufferPointer { s in
            cpl_verify_sha256(pointer, message.baseAddress, message.count, s.baseAddress, s.count) == 1
        }
    }
}
