import CPushLab
import Foundation

/// Which APNs environments a provider certificate may connect to.
public enum APNsCertificateEnvironment: String, Sendable, Hashable, Codable, CaseIterable {
    case sandbox, production
}

/// What an APNs provider (TLS client) certificate says about itself (docs/specs/apns.md
/// "Certificate authentication"): its topics, environments and validity. Read from the DER certificate; the
/// same reader serves the sender (before connecting) and the gateway emulator (per connection).
public struct APNsCertificateFacts: Sendable, Hashable {
    /// Apple's extension OIDs.
    public static let developmentOID = "1.2.840.113635.100.6.3.1"
    public static let productionOID = "1.2.840.113635.100.6.3.2"
    public static let topicsOID = "1.2.840.113635.100.6.3.6"

    public var subject: String
    public var issuer: String
    /// The subject's UID: the app's bundle id on Apple's certificates.
    public var bundleID: String?
    /// Every topic the certificate may push to (the bundle id and its .voip/.complication …).
    public var topics: [String]
    public var environments: Set<APNsCertificateEnvironment>
    public var notBefore: Date
    public var notAfter: Date
    /// SHA-256 of the DER certificate, lowercase hex: what `openssl x509 -noout -fingerprint
    /// -sha256` prints (without its colons). Identifies the certificate; reveals nothing secret.
    public var fingerprint: String

    public init(der: [UInt8]) throws(APNsCertificateError) {
        var facts = cpl_x509_facts()
        guard der.withUnsafeBufferPointer({ cpl_x509_read($0.baseAddress, $0.count, &facts) }) == 1 else {
            throw .notACertificate(source: "certificate")
        }
        fingerprint = Digest.hex(Digest.sha256(der))
        subject = withUnsafeBytes(of: &facts.subject) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        issuer = withUnsafeBytes(of: &facts.issuer) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        let uid = withUnsafeBytes(of: &facts.subject_uid) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        bundleID = uid.isEmpty ? nil : uid
        notBefore = Date(timeIntervalSince1970: TimeInterval(facts.not_before))
        notAfter = Date(timeIntervalSince1970: TimeInterval(facts.not_after))
        var environments: Set<APNsCertificateEnvironment> = []
        if Self.extensionValue(der, Self.developmentOID) != nil { environments.insert(.sandbox) }
        if Self.extensionValue(der, Self.productionOID) != nil { environments.insert(.production) }
        if environments.isEmpty {
            // Older single-environment certificates say it in their common name only.
            if subject.contains("Apple Development IOS Push Services") { environments = [.sandbox] }
            else if subject.contains("Apple Production IOS Push Services") { environments = [.production] }
        }
        self.environments = environments
        let listed = Self.extensionValue(der, Self.topicsOID).map(Self.topicStrings) ?? []
        topics = listed.isEmpty ? (bundleID.map { [$0] } ?? []) : listed
    }

    /// True when the certificate may push to `topic`.
    public func covers(topic: String) -> Bool { topics.contains(topic) }

    public func isValid(at date: Date) -> Bool { date >= notBefore && date <= notAfter }

    /// "sandbox and production", "sandbox", … for messages.
    public var environmentDescription: String {
        let names = APNsCertificateEnvironment.allCases.filter(environments.contains).map(\.rawValue)
        return names.isEmpty ? "no APNs environment" : names.joined(separator: " and ")
    }

    static func extensionValue(_ der: [UInt8], _ oid: String) -> [UInt8]? {
        var out: UnsafeMutablePointer<UInt8>?
        let n = der.withUnsafeBufferPointer { cpl_x509_extension($0.baseAddress, $0.count, oid, &out) }
        guard n >= 0, let out else { return nil }
        defer { cpl_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(n)))
    }

    /// The topics extension: a SEQUENCE whose UTF8String members are the topics (each followed
    /// by a SEQUENCE naming its kind, which is skipped).
    static func topicStrings(_ value: [UInt8]) -> [String] {
        var reader = DERReader(value)
        guard let (tag, body) = reader.next(), tag == 0x30 else { return [] }
        var inner = DERReader(body)
        var topics: [String] = []
        while let (tag, body) = inner.next() {
            if tag == 0x0C { topics.append(String(decoding: body, as: UTF8.self)) }
        }
        return topics
    }
}

/// Walks DER tag-length-value items (definite lengths only, as DER requires).
struct DERReader {
    private let bytes: [UInt8]
    private var index = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func next() -> (tag: UInt8, body: [UInt8])? {
        guard index + 2 <= bytes.count else { return nil }
        let tag = bytes[index]
        var length = Int(bytes[index + 1])
        index += 2
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard count > 0, count <= 4, index + count <= bytes.count else { return nil }
            length = bytes[index..<index + count].reduce(0) { $0 << 8 | Int($1) }
            index += count
        }
        guard length >= 0, index + length <= bytes.count else { return nil }
        defer { index += length }
        return (tag, Array(bytes[index..<index + length]))
    }
}

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
        let matches = certificate.der.withUnsafeBufferPointer { cpl_x509_matches_key($0.baseAddress, $0.count, privateKey.key.pointer) }
        guard matches == 1 else { throw .keyDoesNotMatch(certificate: certificatePath, key: keyFile) }
        return APNsClientCertificate(facts: facts, tls: .pem(certificateFile: certificatePath, keyFile: keyFile), source: certificatePath)
    }

    /// Why this certificate cannot push `topic` to `environment` at `now`, or nil when it can.
    public func problem(topic: String?, environment: APNsCertificateEnvironment?, now: Date = Date()) -> APNsCertificateError? {
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

/// Why a certificate cannot be used, with the fix. Never carries key bytes or passwords.
public enum APNsCertificateError: Error, Sendable, Hashable, CustomStringConvertible {
    case unreadable(source: String)
    case notACertificate(source: String)
    case binaryCertificate(source: String)
    case notPKCS12(source: String)
    case wrongPassword(source: String)
    case noCertificate(source: String)
    case noPrivateKey(source: String)
    case encryptedKey(source: String)
    case keyDoesNotMatch(certificate: String, key: String)
    case expired(source: String, notAfter: Date)
    case notYetValid(source: String, notBefore: Date)
    case wrongEnvironment(source: String, has: String, wanted: APNsCertificateEnvironment)
    case topicNotCovered(source: String, topic: String, topics: [String])

    public var reason: String {
        switch self {
        case .unreadable: return "cannot read the file"
        case .notACertificate: return "no certificate in it (expected PEM '-----BEGIN CERTIFICATE-----' or a .p12)"
        case .binaryCertificate: return "a binary DER certificate (.cer as downloaded from Apple), not PEM"
        case .notPKCS12: return "not a PKCS#12 (.p12) file"
        case .wrongPassword: return "the password does not open it"
        case .noCertificate: return "the .p12 holds no certificate"
        case .noPrivateKey: return "no private key found (a certificate alone cannot authenticate)"
        case .encryptedKey: return "the private key is encrypted"
        case .keyDoesNotMatch: return "the private key is not the certificate's"
        case .expired(_, let date): return "the certificate expired on \(Self.day(date))"
        case .notYetValid(_, let date): return "the certificate is not valid before \(Self.day(date))"
        case .wrongEnvironment(_, let has, let wanted): return "the certificate is for \(has), not \(wanted)"
        case .topicNotCovered(_, let topic, let topics): return "the certificate does not cover topic \(topic) (it covers \(topics.joined(separator: ", ")))"
        }
    }

    public var fix: String {
        switch self {
        case .unreadable: return "check the path and its permissions"
        case .notACertificate: return "pass the push certificate: a .p12 exported from Keychain, or its PEM (openssl pkcs12 -in cert.p12 -clcerts -nokeys -out cert.pem)"
        case .binaryCertificate: return "convert it: openssl x509 -inform der -in aps.cer -out aps.pem, and pass the key with --cert-key"
        case .notPKCS12: return "export the certificate with its key from Keychain as .p12, or pass PEM files with --cert and --cert-key"
        case .wrongPassword: return "give the export password with --cert-password-file FILE or PUSHLAB_CERT_PASSWORD"
        case .noCertificate: return "export the certificate itself (not only the key) from Keychain"
        case .noPrivateKey: return "pass the key with --cert-key key.pem, or export certificate and key together as .p12"
        case .encryptedKey: return "decrypt it once: openssl pkey -in key.pem -out key-plain.pem (keep it private: chmod 600)"
        case .keyDoesNotMatch: return "pass the key the certificate was requested with (its CSR's key)"
        case .expired, .notYetValid: return "create a new push certificate in the developer account, or switch to a .p8 key (token auth never expires)"
        case .wrongEnvironment: return "use --sandbox or --production to match, or create a Sandbox & Production certificate"
        case .topicNotCovered: return "pass --topic with one of the certificate's topics, or use the certificate of that app"
        }
    }

    public var source: String {
        switch self {
        case .unreadable(let s), .notACertificate(let s), .binaryCertificate(let s), .notPKCS12(let s), .wrongPassword(let s),
             .noCertificate(let s), .noPrivateKey(let s), .encryptedKey(let s), .expired(let s, _), .notYetValid(let s, _),
             .wrongEnvironment(let s, _, _), .topicNotCovered(let s, _, _):
            return s
        case .keyDoesNotMatch(let c, _): return c
        }
    }

    public var description: String { "\(source): \(reason); fix: \(fix)" }

    private static func day(_ date: Date) -> String { String(ISO8601DateFormatter().string(from: date).prefix(10)) }
}
