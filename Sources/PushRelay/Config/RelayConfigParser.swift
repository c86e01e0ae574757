import Foundation
import PushAuth
import PushCore
import PushHTTP
import PushStore

extension RelayConfig {
    /// Reads and checks `relay.json`. Paths are resolved against the file's directory and must
    /// name readable files; every error names the file and the JSON pointer.
    public static func load(path: String) throws(RelayConfigError) -> RelayConfig {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw RelayConfigError(file: path, pointer: "", message: "cannot read the file",
                                   fix: "check the path; docs/relay.md shows a complete relay.json")
        }
        let base = FilePaths.parent(of: path)
        return try parse(Array(data), source: path, baseDirectory: base.isEmpty ? "." : base)
    }

    public static func parse(_ bytes: [UInt8], source: String, baseDirectory: String, checkFiles: Bool = true) throws(RelayConfigError) -> RelayConfig {
        let document: JSONDocument
        do {
            document = try JSONDocument.parse(bytes)
        } catch {
            throw RelayConfigError(file: source, pointer: "", message: "not JSON: \(error)", fix: "fix the JSON syntax at the place named")
        }
        do {
            return try ConfigParser(source: source, base: baseDirectory, checkFiles: checkFiles).parse(document.root)
        } catch {
            throw RelayConfigError(file: source, pointer: error.pointer.description, message: error.message, fix: error.fix)
        }
    }
}

/// Walks the config document; every error is a `FieldError` with the pointer.
private struct ConfigParser {
    let source: String
    let base: String
    let checkFiles: Bool

    func parse(_ root: JSONValue) throws(FieldError) -> RelayConfig {
        let top = try ObjectReader(root, at: .root)
        try top.rejectUnknown(["listen", "queue", "limits", "workers", "gorush", "metrics", "apps"])
        var config = RelayConfig(listen: .init(), queue: .init(), limits: .init(), workers: .init(), gorush: .init(), apps: [], source: source)
        if let listen = try top.object("listen") {
            try listen.rejectUnknown(["host", "port", "tls_port", "certificate", "private_key"])
            config.listen.host = try listen.string("host", example: "127.0.0.1") ?? config.listen.host
            if listen.object["port"]?.isNull == true { config.listen.port = nil }
            config.listen.port = try listen.int("port", range: 0...65535) ?? config.listen.port
            config.listen.tlsPort = try listen.int("tls_port", range: 0...65535)
            config.listen.certificate = try path(listen, "certificate", example: "certs/server.pem")
            config.listen.privateKey = try path(listen, "private_key", example: "certs/server.key")
            if config.listen.tlsPort != nil, config.listen.certificate == nil || config.listen.privateKey == nil {
                throw FieldError(listen.pointer / "tls_port", "TLS needs a certificate and a private key",
                                 fix: "add \"certificate\" and \"private_key\" (PEM files) next to tls_port")
            }
            if config.listen.port == nil, config.listen.tlsPort == nil {
                throw FieldError(listen.pointer, "no port to listen on", fix: "set \"port\" (cleartext) or \"tls_port\"")
            }
        }
        if let queue = try top.object("queue") {
            try queue.rejectUnknown(["capacity", "fsync"])
            config.queue.capacity = try queue.int("capacity", range: 1...1_000_000_000) ?? config.queue.capacity
            config.queue.fsync = try queue.bool("fsync") ?? config.queue.fsync
        }
        if let limits = try top.object("limits") {
            try limits.rejectUnknown(["max_body_bytes", "max_targets", "max_notifications"])
            config.limits.maxBodyBytes = try limits.int("max_body_bytes", range: 1024...(256 << 20)) ?? config.limits.maxBodyBytes
            config.limits.maxTargets = try limits.int("max_targets", range: 1...1_000_000) ?? config.limits.maxTargets
            config.limits.maxNotifications = try limits.int("max_notifications", range: 1...100_000) ?? config.limits.maxNotifications
        }
        if let workers = try top.object("workers") {
            try workers.rejectUnknown(["concurrency", "max_attempts", "lease_seconds", "transport"])
            config.workers.concurrency = try workers.int("concurrency", range: 1...10_000) ?? config.workers.concurrency
            config.workers.maxAttempts = try workers.int("max_attempts", range: 1...100) ?? config.workers.maxAttempts
            config.workers.leaseSeconds = try workers.int("lease_seconds", range: 5...86_400) ?? config.workers.leaseSeconds
            config.workers.transport = try workers.oneOf("transport", HTTPTransportKind.self) ?? config.workers.transport
        }
        if let metrics = try top.object("metrics") {
            try metrics.rejectUnknown(["require_admin_key"])
            config.metrics.requireAdminKey = try metrics.bool("require_admin_key") ?? config.metrics.requireAdminKey
        }
        if let gorush = try top.object("gorush") {
            try gorush.rejectUnknown(["unauthenticated"])
            config.gorush.unauthenticated = try gorush.bool("unauthenticated") ?? false
            if config.gorush.unauthenticated, !Self.isLoopback(config.listen.host) {
                throw FieldError(gorush.pointer / "unauthenticated", "unauthenticated gorush access is allowed on loopback only (listen.host is \(config.listen.host))",
                                 fix: "remove it, or listen on 127.0.0.1 for local staging")
            }
        }
        guard let apps = try top.object("apps"), !apps.keys.isEmpty else {
            throw FieldError(JSONPointer.root / "apps", "no apps configured",
                             fix: "add \"apps\": {\"myapp\": {\"apns\": {…}}} (docs/relay.md \"Configuration\")")
        }
        for name in apps.keys {
            config.apps.append(try app(name, try ObjectReader(apps.value(name) ?? .null, at: apps.pointer / name)))
        }
        return config
    }

    static func isLoopback(_ host: String) -> Bool { host == "127.0.0.1" || host == "::1" || host == "localhost" }

    private func app(_ name: String, _ o: ObjectReader) throws(FieldError) -> RelayApp {
        guard name.utf8.allSatisfy({ b in (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x5F || b == 0x2E }),
              !name.isEmpty, name.utf8.count <= 64 else {
            throw FieldError(o.pointer, "app name '\(name)' is not URL-safe", fix: "use letters, digits, '-', '_' and '.' only (it is part of /v1/apps/{app}/…)")
        }
        try o.rejectUnknown(["target", "apns", "fcm", "rate_per_minute", "webhook"])
        let appTarget = try o.oneOf("target", RelayTarget.self)
        var app = RelayApp(name: name, apns: nil, fcm: nil, ratePerMinute: try o.int("rate_per_minute", range: 1...100_000_000) ?? 600_000, webhook: nil)
        if let a = try o.object("apns") {
            try a.rejectUnknown(["key", "key_id", "team_id", "certificate", "certificate_key", "certificate_password_file",
                                 "certificate_password_env", "bundle_id", "environment", "target", "url", "ca_file"])
            let target = try a.oneOf("target", RelayTarget.self) ?? (appTarget == .emulator ? .emulator : .apple)
            guard target != .google else {
                throw FieldError(a.pointer / "target", "APNs cannot go to google", fix: "write \"apple\" or \"emulator\"")
            }
            app.apns = RelayApp.APNs(
                authentication: try apnsAuthentication(a),
                bundleID: try a.requiredString("bundle_id", example: "com.example.app"),
                environment: try a.oneOf("environment", APNsEnvironment.self) ?? .sandbox,
                target: target, url: nil, caFile: try path(a, "ca_file", example: "certs/ca.pem"))
            try apnsHosts(a, into: &app.apns!)
        }
        if let f = try o.object("fcm") {
            try f.rejectUnknown(["service_account", "project_id", "target", "url", "token_url", "ca_file", "project_rate_per_minute"])
            let target = try f.oneOf("target", RelayTarget.self) ?? (appTarget == .emulator ? .emulator : .google)
            guard target != .apple else {
                throw FieldError(f.pointer / "target", "FCM cannot go to apple", fix: "write \"google\" or \"emulator\"")
            }
            app.fcm = RelayApp.FCM(serviceAccountPath: try requiredPath(f, "service_account", example: "secrets/service-account.json"),
                                   projectID: try f.string("project_id", example: "my-project"), target: target,
                                   url: try url(f, "url"), tokenURL: try url(f, "token_url"),
                                   caFile: try path(f, "ca_file", example: "certs/ca.pem"))
            app.fcm?.projectRatePerMinute = try f.int("project_rate_per_minute", range: 1...100_000_000)
        }
        if app.apns == nil, app.fcm == nil {
            throw FieldError(o.pointer, "app '\(name)' has neither \"apns\" nor \"fcm\"", fix: "add the credentials of at least one provider")
        }
        if let w = try o.object("webhook") {
            try w.rejectUnknown(["url", "secret_file", "ca_file"])
            guard let u = try url(w, "url") else {
                throw FieldError(w.pointer / "url", "is required", fix: "add \"url\": \"https://hooks.example.com/push\"")
            }
            app.webhook = RelayApp.Webhook(url: u, secretFile: try requiredPath(w, "secret_file", example: "secrets/webhook.secret"),
                                           caFile: try path(w, "ca_file", example: "certs/ca.pem"))
        }
        return app
    }

    /// A `.p8` key (`key`, `key_id`, `team_id`) or a provider certificate (`certificate` and,
    /// for a `.p12`, its password's file or variable; for PEM, `certificate_key`): exactly one.
    private func apnsAuthentication(_ a: ObjectReader) throws(FieldError) -> RelayApp.Authentication {
        let certificateFields = ["certificate_key", "certificate_password_file", "certificate_password_env"]
        guard a.has("certificate") else {
            for field in certificateFields where a.has(field) {
                throw FieldError(a.pointer / field, "belongs to a provider certificate, but no \"certificate\" is given",
                                 fix: "add \"certificate\": \"secrets/aps.p12\", or remove \(field)")
            }
            guard a.has("key") else {
                throw FieldError(a.pointer / "key", "is required (or \"certificate\")",
                                 fix: "add \"key\": \"certs/AuthKey_ABC123DEFG.p8\" with key_id and team_id, or a provider certificate: \"certificate\": \"secrets/aps.p12\"")
            }
            return .token(keyPath: try requiredPath(a, "key", example: "certs/AuthKey_ABC123DEFG.p8"),
                          keyID: try a.requiredString("key_id", example: "ABC123DEFG"),
                          teamID: try a.requiredString("team_id", example: "DEF123GHIJ"))
        }
        for field in ["key", "key_id", "team_id"] where a.has(field) {
            throw FieldError(a.pointer / field, "belongs to a .p8 key, but the app authenticates with \"certificate\"",
                             fix: "give one way to authenticate: remove \(field), or remove \"certificate\"")
        }
        let file = try requiredPath(a, "certificate", example: "secrets/aps.p12")
        var certificate = RelayApp.Certificate(path: file)
        if APNsClientCertificate.isPKCS12(file) {
            if a.has("certificate_key") {
                throw FieldError(a.pointer / "certificate_key", "a .p12 holds its own key", fix: "remove certificate_key")
            }
            certificate.passwordFile = try path(a, "certificate_password_file", example: "secrets/aps.p12.password")
            certificate.passwordVariable = try a.string("certificate_password_env", example: "SHOP_APNS_P12_PASSWORD")
            if certificate.passwordFile != nil, certificate.passwordVariable != nil {
                throw FieldError(a.pointer / "certificate_password_env", "the password comes from certificate_password_file already",
                                 fix: "give one of certificate_password_file and certificate_password_env")
            }
        } else {
            for field in ["certificate_password_file", "certificate_password_env"] where a.has(field) {
                throw FieldError(a.pointer / field, "only a .p12 has a password; \(file) is read as PEM",
                                 fix: "remove \(field), or name the .p12 file (ending in .p12 or .pfx)")
            }
            certificate.keyPath = try path(a, "certificate_key", example: "secrets/aps-key.pem")
        }
        return .certificate(certificate)
    }

    /// `"url"`: one host for both environments, or `{"sandbox": …, "production": …}`.
    private func apnsHosts(_ a: ObjectReader, into apns: inout RelayApp.APNs) throws(FieldError) {
        guard case .object? = a.value("url") else {
            apns.url = try url(a, "url")
            return
        }
        let hosts = try ObjectReader(a.value("url") ?? .null, at: a.pointer / "url")
        try hosts.rejectUnknown(Set(APNsEnvironment.allCases.map(\.rawValue)))
        for environment in APNsEnvironment.allCases {
            if let u = try url(hosts, environment.rawValue) { apns.environmentURLs[environment] = u }
        }
        if apns.environmentURLs.isEmpty {
            throw FieldError(hosts.pointer, "names no host", fix: "write {\"sandbox\": \"https://…\", \"production\": \"https://…\"} or one URL for both")
        }
    }

    private func url(_ o: ObjectReader, _ key: String) throws(FieldError) -> String? {
        guard let s = try o.string(key, example: "https://127.0.0.1:2197") else { return nil }
        guard let u = URL(string: s), ["http", "https"].contains(u.scheme ?? ""), u.host != nil else {
            throw FieldError(o.pointer / key, "'\(s)' is not an http(s) URL with a host", fix: "write e.g. \"https://127.0.0.1:2197\"")
        }
        return s.hasSuffix("/") ? String(s.dropLast()) : s
    }

    private func requiredPath(_ o: ObjectReader, _ key: String, example: String) throws(FieldError) -> String {
        guard let p = try path(o, key, example: example) else {
            throw FieldError(o.pointer / key, "is required", fix: "add \"\(key)\": \"\(example)\"")
        }
        return p
    }

    /// A file path, resolved against the config's directory, that must be readable.
    private func path(_ o: ObjectReader, _ key: String, example: String) throws(FieldError) -> String? {
        guard let raw = try o.string(key, example: example) else { return nil }
        let resolved = raw.hasPrefix("/") ? raw : (base as NSString).appendingPathComponent(raw)
        if checkFiles, !FileManager.default.isReadableFile(atPath: resolved) {
            throw FieldError(o.pointer / key, "cannot read '\(resolved)'", fix: "check the path (relative paths start at the config file's directory)")
        }
        return resolved
    }
}
