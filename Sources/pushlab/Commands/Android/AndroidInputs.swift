import Foundation
import PushCore
import PushDevice
import PushHTTP

/// Inputs the `pushlab android` commands share.
enum AndroidInputs {
    /// The default is the sample file itself (found like every default file), so --help, the
    /// docs and the behaviour name one profile.
    static let app = Option.value(["--app"], name: "FILE", help: "Android app profile JSON (see payloads/apps/android-*.json).", kind: .string,
                                  computed: "payloads/apps/android-demo.json") { ProjectFiles.defaultFile("payloads/apps/android-demo.json") }
    static let metricsURL = Option.string("--metrics-url", name: "URL",
                                          help: "Send metrics to this host (e.g. a local 'pushlab collector'); overrides the profile's metricsBaseURL. Without either, nothing is sent.")
    static let state = Option.value(["--state"], name: "STATE", help: "foreground, background or killed.",
                                    kind: ValueKind<AndroidAppState>(parse: { raw, flag in
                                        guard let s = AndroidAppState(rawValue: raw) else {
                                            throw UsageError("\(flag) must be one of foreground, background, killed; got '\(raw)'")
                                        }
                                        return s
                                    }, text: \.rawValue, example: "killed"),
                                    default: .background)

    /// A window A-B in ms or with units (0-60000, 10s-2m).
    static let window = ValueKind<AndroidTimeWindow>(parse: { raw, flag in
        guard let w = AndroidTimeWindow.parse(raw) else {
            throw UsageError("\(flag) takes a window A-B in ms or with units (0-60000, 10s-2m), got '\(raw)'")
        }
        return w
    }, text: { "\($0.startMs)-\($0.endMs)" }, example: "0-60000")

    /// An instant in ms after the push, or a duration (2s, 5m, 24h).
    static let instant = ValueKind<Int64>(parse: { raw, flag in
        guard let v = AndroidTimeWindow.parseMs(raw) else { throw UsageError("\(flag) takes milliseconds (1500) or a duration (2s, 5m), got '\(raw)'") }
        return v
    }, text: { $0 > 0 && $0 % 3_600_000 == 0 ? "\($0 / 3_600_000)h" : String($0) }, example: "1500")

    /// The profile from `--app` (default payloads/apps/android-demo.json); `--metrics-url` applied.
    static func profile(_ args: ParsedArguments) throws -> AndroidAppProfile {
        var profile: AndroidAppProfile
        let path = try args[app]
        do { profile = try AndroidAppProfile.load(path: path) } catch { throw UsageError("--app \(error.reason)", fix: error.fix) }
        if let url = try args[metricsURL] {
            guard let u = URL(string: url), ["http", "https"].contains(u.scheme ?? ""), u.host != nil else {
                throw UsageError("--metrics-url '\(url)' is not an http(s) URL", fix: "e.g. --metrics-url https://localhost:8443")
            }
            profile.metricsBaseURL = url
        }
        return profile
    }

    /// A real client when a metrics host is configured; otherwise a transport that refuses
    /// metric requests (images still load), so pushlab never reports to Customer.io by accident.
    static func transport(caFile: String?, profile: AndroidAppProfile) throws -> (HTTPClient, any HTTPTransport) {
        let client = try HTTPClient(configuration: HTTPClientConfiguration(caFile: caFile))
        return (client, profile.metricsBaseURL == nil ? MetricsDisabledTransport(inner: client, metricsHost: profile.metricsHost) : client)
    }

    static func message(_ path: String) throws -> AndroidMessage {
        let bytes = try readInput(path, what: "message file")
        let root: JSONValue
        do { root = try JSONParser().parse(bytes).root } catch {
            throw UsageError("\(path): not valid JSON: \(error)", fix: "check it with 'pushlab validate \(path)'")
        }
        do { return try AndroidMessage.parse(root) } catch { throw UsageError("\(path): \(error)") }
    }

    static func filesDir(_ path: String?, required: Bool) throws -> (URL, Bool) {
        if let path {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDir), !isDir.boolValue {
                throw UsageError("--files-dir \(path): is a file, expected a directory")
            }
            return (URL(fileURLWithPath: path, isDirectory: true), false)
        }
        if required { throw UsageError("missing --files-dir", fix: "pass the directory 'pushlab android receive --files-dir DIR' used") }
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("pushlab-android-\(UUID().uuidString)")
        return (tmp, true)
    }
}

/// Refuses requests to the metrics host (no `--metrics-url`): they fail like a network error.
struct MetricsDisabledTransport: HTTPTransport {
    let inner: any HTTPTransport
    let metricsHost: String
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        if request.url.hasPrefix(metricsHost) { throw HTTPClientError.connectFailed("metrics not sent: no --metrics-url (or metricsBaseURL in the profile)") }
        return try await inner.send(request)
    }
}
