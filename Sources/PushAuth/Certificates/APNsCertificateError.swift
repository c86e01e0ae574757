import CPushLab
import Foundation
import PushCore

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
    case wrongEnvironment(source: String, has: String, wanted: APNsEnvironment)
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
