import CPushLab
import Foundation
import PushCore

/// An APNs provider certificate with its private key, for the sender. The key stays inside
/// (the TLS library reads it from the files named in `tls`); nothing here is ever printed.
public struct APNsClientCertificate: Sendable {
    /// What the TLS client is given: PEM certificate and key files, or a PKCS#12 file and its
    /// password (kept in memory only).
    public enum TLSIdentity: Sendable {
        case pem(certificateFile: String, keyFile: String)
        case pkcs12(file: String, password: String)
    }

    public let facts: APNsCertificateFacts
    public let tls: TLSIdentity
    /// Where it came from, for messages (a path; never the password).
    public let source: String

    /// True for a PKCS#12 bundle (`.p12`/`.pfx`, certificate and key in one file opened with a
    /// password); any other name is read as PEM.
    public static func isPKCS12(_ path: String) -> Bool {
        let lower = path.lowercased()
        return lower.hasSuffix(".p12") || lower.hasSuffix(".pfx")
    }

    /// A certificate from `file` as its name says: a `.p12`/`.pfx` opened with `password()`
    /// (asked for only then), or a PEM certificate whose key is in `keyFile` or the file itself.
    /// `send apns --cert`, `doctor --cert` and the relay's apps load certificates here.
    public static func load(file: String, keyFile: String?, password: () throws -> String) throws -> APNsClientCertificate {
        if isPKCS12(file) { return try load(pkcs12: file, password: try password()) }
        return try load(pem: file, key: keyFile)
    }

    /// The password in a password file: its first line, without the line end.
    public static func password(fromFile contents: [UInt8]) -> String {
        String(decoding: contents, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).first
            .map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) } ?? ""
    }

    /// A `.p12`/`.pfx` exported from Keychain: the certificate and key, opened with `password`.
    public static func load(pkcs12 path: String, password: String) throws(APNsCertificateError) -> APNsClientCertificate {
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(source: path) }
        var certDER: UnsafeMutablePointer<UInt8>?
        var certLength: Int32 = 0
        var key: OpaquePointer?
        let status = Array(data).withUnsafeBufferPointer { cpl_pkcs12_open($0.baseAddress, $0.count, password, &certDER, &certLength, &key) }
        switch status {
        case CPL_P12_OK: break
        case CPL_P12_BAD_PASSWORD: throw .wrongPassword(source: path)
        case CPL_P12_NO_CERTIFICATE: throw .noCertificate(source: path)
        case CPL_P12_NO_KEY: throw .noPrivateKey(source: path)
        default: throw .notPKCS12(source: path)
        }
        if let key { EVP_PKEY_free(key) }
        guard let certDER else { throw .noCertificate(source: path) }
        defer { cpl_free(certDER) }
        let der = Array(UnsafeBufferPointer(start: certDER, count: Int(certLength)))
        let facts: APNsCertificateFacts
        do { facts = try APNsCertificateFacts(der: der) } catch { throw .notACertificate(source: path) }
        return APNsClientCertificate(facts: facts, tls: .pkcs12(file: path, password: password), source: path)
    }

    /// A PEM certificate and its PEM private key (the key may be in the same file).
    public static func load(pem certificatePath: String, key keyPath: String?) throws(APNsCertificateError) -> APNsClientCertificate {
        guard let data = FileManager.default.contents(atPath: certificatePath) else { throw .unreadable(source: certificatePath) }
        let blocks: [PEMBlock]
        do { blocks = try PEMDocument.blocks(in: Array(data), source: certificatePath) } catch {
            if case .binaryDER = error { throw .binaryCertificate(source: certificatePath) }
            throw .notACertificate(source: certificatePath)
        }
        guard let certificate = blocks.first(where: { $0.label == "CERTIFICATE" }) else { throw .notACertificate(source: certificatePath) }
        let facts = try APNsCertificateFacts(der: certificate.der)
        let keyFile = keyPath ?? certificatePath
        let privateKey: PrivateKey
        do {
            guard let keyData = FileManager.default.contents(atPath: keyFile) else { throw APNsCertificateError.unreadable(source: keyFile) }
            // The key may share the file with the certificate: parse only its key block.
            let keyBlocks = try PEMDocument.blocks(in: Array(keyData), source: keyFile).filter { $0.label.hasSuffix("PRIVATE KEY") }
            guard let block = keyBlocks.first else { throw APNsCertificateError.noPrivateKey(source: keyFile) }
            if block.label == "ENCRYPTED PRIVATE KEY" || block.isLegacyEncrypted { throw APNsCertificateError.encryptedKey(source: keyFile) }
            guard let parsed = block.der.withUnsafeBufferPointer({ cpl_private_key_from_der($0.baseAddress, $0.count) }) else {
                throw APNsCertificateError.noPrivateKey(source: keyFile)
            }
            privateKey = PrivateKey(key: OpenSSLKey(parsed))
        } catch let error as APNsCertificateError {
            throw error
        } catch {
            throw .noPrivateKey(source: keyFile)
        }
        guard privateKey.key.matches(certificateDER: certificate.der) else { throw .keyDoesNotMatch(certificate: certificatePath, key: keyFile) }
        return APNsClientCertificate(facts: facts, tls: .pem(certificateFile: certificatePath, keyFile: keyFile), source: certificatePath)
    }

    /// Why this certificate cannot push `topic` to `environment` at `now`, or nil when it can.
    public func problem(topic: String?, environment: APNsEnvironment?, now: Date = Date()) -> APNsCertificateError? {
        if now > facts.notAfter { return .expired(source: source, notAfter: facts.notAfter) }
        if now < facts.notBefore { return .notYetValid(source: source, notBefore: facts.notBefore) }
        if let environment, !facts.environments.isEmpty, !facts.environments.contains(environment) {
            return .wrongEnvironment(source: source, has: facts.environmentDescription, wanted: environment)
        }
        if let topic, !facts.topics.isEmpty, !facts.covers(topic: topic) {
            return .topicNotCovered(source: source, topic: topic, topics: facts.topics)
        }
        return nil
    }
}
