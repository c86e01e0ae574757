import CPushLab
import Foundation
import PushCore

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
    public var environments: Set<APNsEnvironment>
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
        var environments: Set<APNsEnvironment> = []
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
        let names = APNsEnvironment.allCases.filter(environments.contains).map(\.rawValue)
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
