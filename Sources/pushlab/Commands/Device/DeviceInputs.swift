import Foundation
import PushCore
import PushDevice

/// Inputs the device commands (`nse`, `app launch`, `app store`) share: the app profile, the
/// App Group container and the push payload, each with an error that names the flag or file.
enum DeviceInputs {
    /// The profile from `--app`, or the built-in demo app (payloads/apps/demo.json).
    static let app = Option.string("--app", name: "FILE", help: "App profile JSON (see payloads/apps/).", described: "built-in demo app")

    static func profile(_ args: ParsedArguments) throws -> AppProfile {
        var profile: AppProfile
        if let path = try args[app] {
            do {
                profile = try AppProfile.load(path: path)
            } catch {
                throw UsageError("--app \(error.reason)", fix: error.fix)
            }
        } else {
            profile = AppProfile(bundleID: "io.pushlab.demo", extensionBundleID: "io.pushlab.demo.richpush", cdpAPIKey: "pushlab-demo-cdp-key",
                                 metricsBaseURL: "https://localhost:8443")
        }
        if let collector = try args[Self.collector] {
            guard let url = URLComponents(string: collector), url.scheme == "https" || url.scheme == "http", url.host?.isEmpty == false,
                  url.path.isEmpty || url.path == "/", url.query == nil else {
                throw UsageError("--collector '\(collector)' is not an http(s) base URL",
                                 fix: "give the collector's scheme, host and port only, e.g. --collector https://localhost:8443 (pushlab serve) or http://127.0.0.1:8081")
            }
            profile.metricsBaseURL = collector
        }
        return profile
    }

    /// `--collector URL`: every device command accepts it (it overrides the profile's metrics host).
    static let collector = Option.string("--collector", name: "URL",
                                         help: "Send metrics to this collector instead of the profile's metrics host, e.g. https://localhost:8443.",
                                         described: "the profile's metricsBaseURL or region host")

    /// `--container DIR`: the App Group container shared by the extension and the app.
    static func container(help: String) -> TypedOption<String?> { Option.string("--container", name: "DIR", help: help) }

    /// The container directory from `--container`, created when missing.
    static func containerURL(_ path: String?, required: Bool) throws -> URL? {
        guard let path else {
            if required { throw UsageError("missing --container", fix: "pass the App Group container directory the extension wrote to, e.g. --container /tmp/pushlab-group") }
            return nil
        }
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDir) {
            guard isDir.boolValue else { throw UsageError("--container \(path): is a file, expected a directory") }
        } else {
            do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) } catch {
                throw UsageError("--container \(path): cannot create the directory (\(error.localizedDescription))")
            }
        }
        return URL(fileURLWithPath: path, isDirectory: true)
    }

    /// The APNs payload from a file: an APNs JSON payload, or an FCM v1 message whose
    /// `message.apns.payload` is what iOS receives (docs/specs/device-side.md §1).
    static func payload(_ path: String) throws -> (JSONValue, Int) {
        let bytes = try readInput(path, what: "payload file")
        let root: JSONValue
        do {
            root = try JSONParser().parse(bytes).root
        } catch {
            throw UsageError("\(path): not valid JSON: \(error)", fix: "check the payload with 'pushlab validate \(path)'")
        }
        guard case .object = root else { throw UsageError("\(path): the payload must be a JSON object (got \(root.typeName))") }
        if let message = root["message"], case .object = message {
            guard let apns = message["apns"]?["payload"], case .object = apns else {
                throw UsageError("\(path): FCM message has no /message/apns/payload, so iOS gets no APNs payload to run the extension on",
                                 fix: "add message.apns.payload with aps.mutable-content 1 and the CIO keys")
            }
            return (apns, bytes.count)
        }
        return (root, bytes.count)
    }

    /// `--kill-at`: a bare number is milliseconds; a unit (250ms, 2s) is honoured.
    static let killAt = Option.value(["--kill-at"], name: "MS", help: "Kill the extension process this many ms after the push arrives.",
                                     kind: ValueKind<Duration>(parse: { raw, flag in
                                         if let ms = Int64(raw), ms >= 0 { return .milliseconds(ms) }
                                         guard let d = parseFaultDuration(raw) else {
                                             throw UsageError("\(flag) takes milliseconds (e.g. 1500) or a duration like 2s, got '\(raw)'")
                                         }
                                         return d
                                     }, text: { $0.compactText }, example: "1500"))
}
