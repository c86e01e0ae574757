import Foundation
import PushAuth
import PushCore

/// One app's credentials, loaded and checked before the relay serves (and by `relay --check`).
/// A key that does not load, or a provider certificate that cannot push the app's `bundle_id`
/// to its `environment` (expired, other environment, other app), stops the start with an error
/// that names the app and the relay.json field, and says how to fix it. Nothing here is printed
/// or served: the read-back shows paths and fingerprints only.
public struct AppCredentials: Sendable {
    public enum APNs: Sendable {
        case token(APNsAuthKey)
        case certificate(APNsClientCertificate)
    }

    public let apns: APNs?
    public let serviceAccount: ServiceAccount?

    /// - Parameters:
    ///   - source: the config file, for the errors.
    ///   - environment: where `certificate_password_env` is looked up.
    public static func load(_ app: RelayApp, source: String, environment: [String: String] = ProcessInfo.processInfo.environment,
                            now: Date = Date()) throws(RelayConfigError) -> AppCredentials {
        let pointer = "/apps/\(app.name)"
        var apns: APNs?
        if let a = app.apns {
            switch a.authentication {
            case .token(let keyPath, let keyID, let teamID):
                do {
                    apns = .token(try APNsAuthKey.load(path: keyPath, keyID: keyID, teamID: teamID))
                } catch {
                    throw RelayConfigError(file: source, pointer: pointer + "/apns/key", message: "\(error)",
                                           fix: "name the .p8 key downloaded from the developer account, with its key_id and team_id")
                }
            case .certificate(let c):
                apns = .certificate(try certificate(c, of: a, app: app.name, source: source, environment: environment, now: now))
            }
        }
        var serviceAccount: ServiceAccount?
        if let f = app.fcm {
            do { serviceAccount = try ServiceAccount.load(path: f.serviceAccountPath) } catch {
                throw RelayConfigError(file: source, pointer: pointer + "/fcm/service_account", message: "\(error)",
                                       fix: "name the service-account JSON downloaded from the Firebase console")
            }
        }
        return AppCredentials(apns: apns, serviceAccount: serviceAccount)
    }

    /// Loads the certificate as `send apns --cert` does, then runs the same check
    /// (`APNsClientCertificate.problem`) against the app's topic and environment.
    private static func certificate(_ c: RelayApp.Certificate, of apns: RelayApp.APNs, app: String, source: String,
                                    environment: [String: String], now: Date) throws(RelayConfigError) -> APNsClientCertificate {
        let fields = "/apps/\(app)/apns/"
        func refuse(_ error: APNsCertificateError) -> RelayConfigError {
            RelayConfigError(file: source, pointer: fields + field(of: error, c), message: "\(error.source): \(error.reason)", fix: fix(for: error, c))
        }
        let certificate: APNsClientCertificate
        do {
            certificate = try APNsClientCertificate.load(file: c.path, keyFile: c.keyPath) { () throws(RelayConfigError) -> String in
                if let file = c.passwordFile {
                    guard let bytes = FileManager.default.contents(atPath: file) else {
                        throw RelayConfigError(file: source, pointer: fields + "certificate_password_file", message: "cannot read '\(file)'",
                                               fix: "check the path and its permissions")
                    }
                    return APNsClientCertificate.password(fromFile: Array(bytes))
                }
                let variable = c.passwordVariable ?? RelayApp.Certificate.defaultPasswordVariable
                guard let password = environment[variable] else {
                    throw RelayConfigError(file: source, pointer: fields + (c.passwordVariable != nil ? "certificate_password_env" : "certificate"),
                                           message: "\(c.path): a .p12 needs its password, and \(variable) is not set",
                                           fix: "put the password in a file readable only by the relay and name it in certificate_password_file, or set \(variable)")
                }
                return password
            }
        } catch let error as RelayConfigError {
            throw error
        } catch let error as APNsCertificateError {
            throw refuse(error)
        } catch {
            throw RelayConfigError(file: source, pointer: fields + "certificate", message: "\(error)", fix: "check the certificate file")
        }
        if let problem = certificate.problem(topic: apns.bundleID, environment: apns.environment, now: now) { throw refuse(problem) }
        return certificate
    }

    /// The relay.json field to change for each problem.
    private static func field(of error: APNsCertificateError, _ c: RelayApp.Certificate) -> String {
        switch error {
        case .wrongPassword: return c.passwordFile != nil ? "certificate_password_file" : c.passwordVariable != nil ? "certificate_password_env" : "certificate"
        case .noPrivateKey(let source), .encryptedKey(let source), .unreadable(let source):
            return c.keyPath != nil && source == c.keyPath ? "certificate_key" : "certificate"
        case .keyDoesNotMatch: return c.keyPath != nil ? "certificate_key" : "certificate"
        case .wrongEnvironment: return "environment"
        case .topicNotCovered: return "bundle_id"
        case .notACertificate, .binaryCertificate, .notPKCS12, .noCertificate, .expired, .notYetValid: return "certificate"
        }
    }

    /// PushAuth's fixes name `send apns` flags; in relay.json the same fix is a field.
    private static func fix(for error: APNsCertificateError, _ c: RelayApp.Certificate) -> String {
        switch error {
        case .binaryCertificate: return "convert it: openssl x509 -inform der -in aps.cer -out aps.pem, and name the key in certificate_key"
        case .notPKCS12: return "export the certificate with its key from Keychain as .p12, or give a PEM certificate and its key in certificate_key"
        case .wrongPassword:
            return "put the export password on the first line of certificate_password_file, or in the variable certificate_password_env names (default \(RelayApp.Certificate.defaultPasswordVariable))"
        case .noPrivateKey: return "name the PEM key in certificate_key, or export certificate and key together as .p12"
        case .wrongEnvironment(_, let has, _): return "set \"environment\" to the certificate's (\(has)), or create a Sandbox & Production certificate"
        case .topicNotCovered(_, _, let topics): return "set \"bundle_id\" to one of the certificate's topics (\(topics.joined(separator: ", "))), or use that app's certificate"
        default: return error.fix
        }
    }

    /// What `relay --check` prints about the APNs credential: ids, topics, validity; never secrets.
    public var apnsSummary: String? {
        switch apns {
        case .token(let key)?: return "APNs key \(key.keyID) team \(key.teamID)"
        case .certificate(let certificate)?:
            let facts = certificate.facts
            let expires = ISO8601DateFormatter().string(from: facts.notAfter).prefix(10)
            return "APNs certificate \(certificate.source) (sha256 \(facts.fingerprint.prefix(16))…, \(facts.environmentDescription), topics \(facts.topics.joined(separator: " ")), expires \(expires))"
        case nil: return nil
        }
    }
}
