import Foundation
import PushAuth
import PushCore
import PushSend

/// `send apns --cert …`: certificate-based authentication instead of a `.p8` key
/// (docs/credentials.md "Certificates"). The password of a `.p12` comes from a file or
/// PUSHLAB_CERT_PASSWORD, never from the command line, and is never printed.
enum APNsCertificateFlags {
    static let passwordVariable = "PUSHLAB_CERT_PASSWORD"

    static let cert = Option.string("--cert", name: "FILE", help: "APNs provider certificate instead of --key: a .p12 exported from Keychain, or a PEM certificate (with its key in the file or in --cert-key).")
    static let certKey = Option.string("--cert-key", name: "PEM", help: "The PEM private key of a PEM --cert (default: the --cert file itself).")
    static let passwordFile = Option.string("--cert-password-file", name: "FILE", help: "File whose first line is the .p12 password (or \(passwordVariable)); never give it on the command line.")
    static let options: [any OptionDeclaration] = [cert, certKey, passwordFile]

    /// The certificate when `--cert` is given, nil otherwise. Exit 2 for every problem with it.
    static func load(_ args: ParsedArguments) throws -> APNsClientCertificate? {
        guard let path = try args[cert] else {
            for option in [certKey, passwordFile] where args.isGiven(option) {
                let flag = option.spec.primary
                throw UsageError("\(flag) needs --cert", fix: "add --cert FILE, or drop \(flag)")
            }
            return nil
        }
        if args.isGiven(APNsCredentialFlags.flagsOnly.key) {
            throw UsageError("--key and --cert both authenticate to APNs; give one of them",
                             fix: "--key AuthKey_<KEYID>.p8 for token authentication, --cert for a provider certificate")
        }
        if APNsClientCertificate.isPKCS12(path), args.isGiven(certKey) {
            throw UsageError("--cert-key: a .p12 holds its own key", fix: "drop --cert-key")
        }
        do {
            let keyFile = try args[certKey]
            let certificate = try APNsClientCertificate.load(file: path, keyFile: keyFile) { try password(args, for: path) }
            KeyFilePermissions.warnIfShared(keyFile ?? path, flag: keyFile != nil ? "--cert-key" : "--cert")
            return certificate
        } catch let error as APNsCertificateError {
            throw UsageError("--cert \(error.source): \(error.reason)", fix: error.fix)
        }
    }

    private static func password(_ args: ParsedArguments, for path: String) throws -> String {
        if let file = try args[passwordFile] {
            return APNsClientCertificate.password(fromFile: try readInput(file, what: "password file"))
        }
        if let value = ProcessInfo.processInfo.environment[passwordVariable] { return value }
        throw UsageError("--cert \(path): a .p12 needs its password",
                         fix: "put it in a file readable only by you and pass --cert-password-file FILE, or set \(passwordVariable)")
    }

    /// Refuses a certificate that cannot push `topic` to `endpoint` (expired, other environment,
    /// other app) before connecting; with `--no-validate` the server answers instead.
    static func preflight(_ certificate: APNsClientCertificate, topic: String?, endpoint: APNsEndpoint,
                          sendAnyway: String? = " (or --no-validate to send anyway)") throws {
        let environment: APNsEnvironment?
        switch URLComponents(string: endpoint.baseURL)?.host {
        case APNsEndpoint.sandboxHost?: environment = .sandbox
        case APNsEndpoint.productionHost?: environment = .production
        default: environment = nil  // the emulator or another server: it answers for itself
        }
        if let problem = certificate.problem(topic: topic, environment: environment) {
            throw UsageError("--cert \(problem.source): \(problem.reason)", fix: problem.fix + (sendAnyway ?? ""))
        }
    }
}
