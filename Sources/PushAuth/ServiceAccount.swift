import Foundation

/// A Google service-account key file (docs/specs/fcm.md "Credentials"). Only the fields FCM needs are
/// kept; `privateKey` never appears in `description`.
public struct ServiceAccount: Sendable, CustomStringConvertible {
    /// Google's token endpoint, used when the file has no `token_uri`.
    public static let defaultTokenURI = "https://oauth2.googleapis.com/token"

    public let projectID: String
    public let clientEmail: String
    /// The key's id: the assertion's `kid` header. Optional in the file, as in google-auth.
    public let privateKeyID: String?
    public let privateKey: PrivateKey
    public let tokenURI: String
    /// Where the account was read from (a path, or a caller-chosen label).
    public let source: String

    public init(projectID: String, clientEmail: String, privateKeyID: String?, privateKey: PrivateKey,
                tokenURI: String = ServiceAccount.defaultTokenURI, source: String = "service account") {
        self.projectID = projectID
        self.clientEmail = clientEmail
        self.privateKeyID = privateKeyID
        self.privateKey = privateKey
        self.tokenURI = tokenURI
        self.source = source
    }

    /// Reads a service-account JSON file (`GOOGLE_APPLICATION_CREDENTIALS` resolution is the CLI's job).
    public static func load(path: String) throws(ServiceAccountError) -> ServiceAccount {
        let bytes: [UInt8]
        do { bytes = try readKeyFile(path) } catch {
            if case .unreadable(_, let detail) = error { throw .unreadable(path: path, detail: detail) }
            throw .unreadable(path: path, detail: error.reason)
        }
        return try parse(bytes, source: path)
    }

    /// Parses service-account JSON. `source` names it in errors.
    public static func parse(_ bytes: [UInt8], source: String) throws(ServiceAccountError) -> ServiceAccount {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) { throw .notJSON(path: source, detail: "the file is empty") }
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: Data(bytes)) } catch {
            if bytes.starts(with: Array("-----BEGIN".utf8)) {
                throw .notJSON(path: source, detail: "this is a PEM file; FCM needs the service-account .json")
            }
            throw .notJSON(path: source, detail: "it does not parse as JSON")
        }
        guard let fields = object as? [String: Any] else { throw .notAnObject(path: source) }

        func string(_ name: String, required: Bool) throws(ServiceAccountError) -> String? {
            guard let value = fields[name], !(value is NSNull) else {
                if required { throw .missingField(path: source, field: name) }
                return nil
            }
            guard let text = value as? String else { throw .fieldNotString(path: source, field: name) }
            if required && text.isEmpty { throw .missingField(path: source, field: name) }
            return text
        }

        let type = try string("type", required: true)!
        guard type == "service_account" else { throw .wrongType(path: source, found: type) }
        let projectID = try string("project_id", required: true)!
        let clientEmail = try string("client_email", required: true)!
        let pem = try string("private_key", required: true)!
        let keyID = try string("private_key_id", required: false)
        let tokenURI = try string("token_uri", required: false) ?? defaultTokenURI
        guard let url = URL(string: tokenURI), let scheme = url.scheme?.lowercased(),
              scheme == "https" || scheme == "http", url.host != nil
        else { throw .invalidTokenURI(path: source, uri: tokenURI) }

        let keySource = "\(source) (/private_key)"
        let key: PrivateKey
        do { key = try PrivateKey(pem: Array(pem.utf8), source: keySource) } catch {
            throw .privateKey(path: source, error)
        }
        guard case .rsa = key.algorithm else {
            throw .privateKey(path: source, .notRSA(source: keySource, found: key.algorithm.description))
        }
        return ServiceAccount(projectID: projectID, clientEmail: clientEmail, privateKeyID: keyID,
                              privateKey: key, tokenURI: tokenURI, source: source)
    }

    public var description: String {
        "ServiceAccount(project: \(projectID), client: \(clientEmail), token_uri: \(tokenURI))"
    }
}

/// Why a service-account file could not be used. Names the file and the JSON pointer.
public enum ServiceAccountError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(path: String, detail: String)
    case notJSON(path: String, detail: String)
    case notAnObject(path: String)
    case missingField(path: String, field: String)
    case fieldNotString(path: String, field: String)
    case wrongType(path: String, found: String)
    case invalidTokenURI(path: String, uri: String)
    /// `private_key` is not a usable RSA key; the wrapped error says why.
    case privateKey(path: String, KeyLoadError)

    public var path: String {
        switch self {
        case .unreadable(let p, _), .notJSON(let p, _), .notAnObject(let p), .missingField(let p, _),
             .fieldNotString(let p, _), .wrongType(let p, _), .invalidTokenURI(let p, _), .privateKey(let p, _):
            return p
        }
    }

    public var reason: String {
        switch self {
        case .unreadable(_, let detail): return "cannot read the service-account file (\(detail))"
        case .notJSON(_, let detail): return "not a service-account JSON file: \(detail)"
        case .notAnObject: return "the JSON is not an object"
        case .missingField(_, let field): return "/\(field) is missing or empty"
        case .fieldNotString(_, let field): return "/\(field) must be a string"
        case .wrongType(_, let found): return "/type is '\(found)', expected 'service_account'"
        case .invalidTokenURI(_, let uri): return "/token_uri '\(uri)' is not an http(s) URL"
        case .privateKey(_, let error): return "/private_key: \(error.reason)"
        }
    }

    public var fix: String {
        switch self {
        case .unreadable: return "check the path (--service-account or GOOGLE_APPLICATION_CREDENTIALS) and its permissions"
        case .notJSON, .notAnObject, .missingField, .fieldNotString:
            return "download a new key: Google Cloud console > IAM > Service accounts > Keys > Add key > JSON"
        case .wrongType:
            return "use a service-account key; user credentials (authorized_user) and google-services.json cannot send FCM messages"
        case .invalidTokenURI: return "set token_uri to https://oauth2.googleapis.com/token (or the emulator's /token URL)"
        case .privateKey(_, let error):
            if case .notRSA = error { return error.fix }
            return "the key in the file is damaged; download a new JSON key from the Google Cloud console"
        }
    }

    public var description: String { "\(path): \(reason). Fix: \(fix)." }
}
