/// Why a key could not be loaded. Each case names where the key came from (`source`: a file
/// path, or `file (/json/pointer)` for a key inside a JSON file) and says how to fix it.
/// No case ever carries key bytes: descriptions are safe to print and log.
public enum KeyLoadError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(source: String, detail: String)
    case empty(source: String)
    /// No `-----BEGIN …-----` line: not a PEM file at all (binary DER, random text, JSON …).
    case notPEM(source: String)
    /// Binary DER where PEM text was expected (a key converted with `-outform DER`).
    case binaryDER(source: String)
    /// A BEGIN line without its END line: the file was cut short.
    case truncated(source: String)
    /// The PEM armour is there but its base64 or DER content does not parse.
    case corrupt(source: String, detail: String)
    case certificateInsteadOfKey(source: String)
    case publicKeyInsteadOfPrivateKey(source: String)
    case privateKeyInsteadOfPublicKey(source: String)
    case encrypted(source: String)
    /// A PEM block of a kind that is not a key (`CERTIFICATE REQUEST`, `DH PARAMETERS` …).
    case unexpectedPEMBlock(source: String, label: String)
    /// APNs needs a P-256 EC key; this is RSA.
    case rsaKeyInsteadOfP256(source: String)
    /// An EC key on another curve (P-384, P-521, secp256k1 …).
    case wrongCurve(source: String, curve: String)
    /// FCM service accounts carry RSA keys; this is something else.
    case notRSA(source: String, found: String)
    case unsupportedKeyType(source: String)
    /// No key id given and the file name is not `AuthKey_<KEYID>.p8`.
    case missingKeyID(source: String)
    case invalidKeyID(String)
    case missingTeamID
    case invalidTeamID(String)

    public var source: String? {
        switch self {
        case .unreadable(let s, _), .empty(let s), .notPEM(let s), .binaryDER(let s), .truncated(let s), .corrupt(let s, _),
             .certificateInsteadOfKey(let s), .publicKeyInsteadOfPrivateKey(let s),
             .privateKeyInsteadOfPublicKey(let s), .encrypted(let s), .unexpectedPEMBlock(let s, _),
             .rsaKeyInsteadOfP256(let s), .wrongCurve(let s, _), .notRSA(let s, _),
             .unsupportedKeyType(let s), .missingKeyID(let s):
            return s
        case .invalidKeyID, .missingTeamID, .invalidTeamID:
            return nil
        }
    }

    public var reason: String {
        switch self {
        case .unreadable(_, let detail): return "cannot read the file (\(detail))"
        case .empty: return "the file is empty"
        case .notPEM: return "not a PEM file: no '-----BEGIN …-----' line"
        case .binaryDER: return "this is binary DER, not PEM text"
        case .truncated: return "the PEM block has no END line: the file is truncated"
        case .corrupt(_, let detail): return "the PEM block is damaged (\(detail))"
        case .certificateInsteadOfKey: return "this is a certificate, not a private key"
        case .publicKeyInsteadOfPrivateKey: return "this is a public key; signing needs the private key"
        case .privateKeyInsteadOfPublicKey: return "this is a private key where a public key was expected"
        case .encrypted: return "the private key is encrypted with a passphrase"
        case .unexpectedPEMBlock(_, let label): return "the PEM block is '\(label)', not a key"
        case .rsaKeyInsteadOfP256: return "this is an RSA key; APNs token auth needs an EC P-256 key"
        case .wrongCurve(_, let curve): return "this EC key is on curve \(curve); APNs needs P-256 (prime256v1)"
        case .notRSA(_, let found): return "the key is \(found); a service account key must be RSA"
        case .unsupportedKeyType: return "unsupported key type (only EC P-256 and RSA keys are used)"
        case .missingKeyID: return "no key id given and the file name is not AuthKey_<KEYID>.p8"
        case .invalidKeyID(let id): return "key id '\(id)' is not 10 letters or digits"
        case .missingTeamID: return "no team id given"
        case .invalidTeamID(let id): return "team id '\(id)' is not 10 letters or digits"
        }
    }

    public var fix: String {
        switch self {
        case .unreadable: return "check the path and its permissions"
        case .empty, .truncated, .corrupt, .notPEM:
            return "download the key again (APNs: developer.apple.com > Keys; FCM: Google Cloud console > service account > Keys)"
        case .certificateInsteadOfKey:
            return "token auth uses the .p8 key file (AuthKey_<KEYID>.p8), not a certificate"
        case .binaryDER: return "convert it: openssl pkey -inform DER -in key.der -out AuthKey_<KEYID>.p8"
        case .publicKeyInsteadOfPrivateKey: return "pass the private key file (PEM 'PRIVATE KEY')"
        case .privateKeyInsteadOfPublicKey: return "pass the public key (PEM 'PUBLIC KEY'), e.g. from `openssl pkey -pubout`"
        case .encrypted:
            return "decrypt it first: openssl pkcs8 -topk8 -nocrypt -in encrypted.pem -out AuthKey_<KEYID>.p8"
        case .unexpectedPEMBlock: return "pass the PEM file that contains the private key"
        case .rsaKeyInsteadOfP256, .wrongCurve:
            return "create an APNs key at developer.apple.com > Certificates, Identifiers & Profiles > Keys and download its .p8"
        case .notRSA: return "use the private_key of a Google service-account key file (RSA)"
        case .unsupportedKeyType: return "use an EC P-256 (APNs) or RSA (FCM) private key"
        case .missingKeyID: return "pass --key-id (or APNS_KEY_ID), or keep Apple's file name AuthKey_<KEYID>.p8"
        case .invalidKeyID: return "copy the 10-character Key ID shown next to the key in the Apple developer account"
        case .missingTeamID, .invalidTeamID:
            return "pass --team-id (or APNS_TEAM_ID): the 10-character Team ID from the Apple developer account"
        }
    }

    public var description: String {
        if let source { return "\(source): \(reason). Fix: \(fix)." }
        return "\(reason). Fix: \(fix)."
    }
}
