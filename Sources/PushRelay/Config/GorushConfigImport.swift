import PushCore

/// `pushlab relay import-gorush`: a gorush v1.22.0 YAML config (config/config.go; the keys in
/// docs/specs/relay.md §9) turned into a relay.json with one app, and a row for every setting
/// saying what it became, or why it has no counterpart. Secrets in the YAML (passwords, inline
/// keys and credentials, the webhook header) are never copied: only paths are.
public struct GorushConfigImport: Sendable {
    public enum Outcome: String, Sendable, Encodable {
        /// Written into relay.json.
        case mapped
        /// The relay does this without a setting (or with another default), said in the note.
        case builtIn = "built_in"
        /// Not in relay.json but on the command line or per request, said in the note.
        case elsewhere
        /// No counterpart; the note says why.
        case none
        /// A secret: not copied, the note says where it goes instead.
        case secret
        /// Not a gorush setting.
        case unknown
    }

    public struct Setting: Sendable, Encodable {
        /// The gorush key, e.g. `core.port`.
        public var gorush: String
        /// Its value as written, or `(secret)`; nil for a section.
        public var value: String?
        public var outcome: Outcome
        /// The relay.json pointer it became, when `mapped`.
        public var relay: String?
        public var note: String
        public var line: Int
    }

    public var app: String
    /// relay.json, keys in a reader's order.
    public var relay: JSONValue
    public var settings: [Setting]

    /// Why a config cannot be converted, at a line and column of the YAML.
    public struct Problem: Error, Sendable, CustomStringConvertible {
        public var line: Int
        public var column: Int
        public var key: String
        public var message: String
        public var fix: String
        public var description: String { "\(line):\(column): \(key): \(message)" }
    }

    public static func convert(_ root: YAMLNode?, app: String = "default", bundleID: String? = nil) throws(Problem) -> GorushConfigImport {
        var c = Converter(app: app, bundleID: bundleID)
        try c.run(root)
        return GorushConfigImport(app: app, relay: c.relayJSON(), settings: c.settings)
    }
}

private struct Converter {
    let app: String
    let bundleID: String?
    var settings: [GorushConfigImport.Setting] = []
    var listen: [JSONMember] = []
    var limits: [JSONMember] = []
    var workers: [JSONMember] = []
    var apns: [JSONMember]?
    var fcm: [JSONMember]?
    var webhook: [JSONMember]?

    init(app: String, bundleID: String?) {
        self.app = app
        self.bundleID = bundleID
    }

    static let secretKeys: Set<String> = ["core.cert_base64", "core.key_base64", "android.credential", "huawei.appsecret", "ios.key_base64",
                                          "ios.password", "queue.redis.password", "stat.redis.password", "core.feedback_header"]

    func problem(_ node: YAMLNode?, _ key: String, _ message: String, fix: String) -> GorushConfigImport.Problem {
        GorushConfigImport.Problem(line: node?.line ?? 1, column: node?.column ?? 1, key: key, message: message, fix: fix)
    }

    mutating func note(_ key: String, _ node: YAMLNode?, _ outcome: GorushConfigImport.Outcome, relay: String? = nil, _ text: String) {
        var shown: String?
        if let node {
            switch node.value {
            case .scalar(let s, _): shown = Self.secretKeys.contains(key) ? (s.isEmpty ? "" : "(secret)") : s
            case .sequence(let items): shown = Self.secretKeys.contains(key) ? (items.isEmpty ? "[]" : "(secret, \(items.count) item\(items.count == 1 ? "" : "s"))") : "[\(items.count) items]"
            case .mapping: shown = nil
            }
        }
        settings.append(.init(gorush: key, value: shown, outcome: outcome, relay: relay, note: text, line: node?.line ?? 0))
    }

    func section(_ root: YAMLNode, _ name: String) throws(GorushConfigImport.Problem) -> YAMLNode? {
        guard let node = root[name], !node.isNull else { return nil }
        guard case .mapping = node.value else {
            throw problem(node, name, "must be a mapping (key: value lines), got \(node.kindName)", fix: "indent the \(name) settings under '\(name):'")
        }
        return node
    }

    func string(_ node: YAMLNode?, _ key: String) throws(GorushConfigImport.Problem) -> String? {
        guard let node, !node.isNull else { return nil }
        guard case .scalar(let s, _) = node.value else {
            throw problem(node, key, "must be a single value, got \(node.kindName)", fix: "write \(key.split(separator: ".").last ?? ""): VALUE")
        }
        return s
    }

    func bool(_ node: YAMLNode?, _ key: String) throws(GorushConfigImport.Problem) -> Bool? {
        guard let node, !node.isNull else { return nil }
        guard let b = node.bool else {
            throw problem(node, key, "must be true or false, got '\(node.scalar ?? node.kindName)'", fix: "write true or false")
        }
        return b
    }

    func int(_ node: YAMLNode?, _ key: String) throws(GorushConfigImport.Problem) -> Int? {
        guard let node, !node.isNull else { return nil }
        guard let i = node.int else {
            throw problem(node, key, "must be a whole number, got '\(node.scalar ?? node.kindName)'", fix: "write a number, e.g. 100")
        }
        return i
    }

    /// Every key of a section that this converter does not name is listed as unknown.
    mutating func rest(_ section: YAMLNode?, _ prefix: String, known: Set<String>) {
        guard case .mapping(let pairs)? = section?.value else { return }
        for (key, value) in pairs where !known.contains(key) {
            note("\(prefix).\(key)", value, .unknown, "not a gorush v1.22.0 setting; ignored (a typo in gorush.yml is ignored by gorush too)")
        }
    }

    mutating func run(_ root: YAMLNode?) throws(GorushConfigImport.Problem) {
        guard let root else {
            throw problem(nil, "(file)", "the file has no settings", fix: "give gorush's config.yml (core, ios, android … sections)")
        }
        guard case .mapping(let top) = root.value else {
            throw problem(root, "(file)", "must be a mapping of sections (core:, ios:, android: …), got \(root.kindName)", fix: "give gorush's config.yml")
        }
        let sections = ["core", "grpc", "api", "android", "huawei", "queue", "ios", "log", "stat"]
        for (key, value) in top where !sections.contains(key) {
            note(key, value, .unknown, "not a gorush v1.22.0 section; ignored")
        }
        let ios = try section(root, "ios"), android = try section(root, "android")
        let iosEnabled = try bool(ios?["enabled"], "ios.enabled") ?? false
        let androidEnabled = try bool(android?["enabled"], "android.enabled") ?? true
        try core(try section(root, "core"), iosEnabled: iosEnabled)
        try self.grpc(try section(root, "grpc"))
        try self.api(try section(root, "api"))
        try self.android(android, enabled: androidEnabled)
        try self.huawei(try section(root, "huawei"))
        try self.queue(try section(root, "queue"))
        try self.ios(ios, enabled: iosEnabled)
        try self.retries(ios: ios, android: android, iosEnabled: iosEnabled, androidEnabled: androidEnabled)
        try self.log(try section(root, "log"))
        try self.stat(try section(root, "stat"))
        if apns == nil && fcm == nil {
            throw problem(root, "ios.enabled, android.enabled", "neither iOS nor Android is enabled: the relay's app needs one of them",
                          fix: "set ios.enabled or android.enabled to true (with its key) and run again")
        }
    }

    mutating func core(_ core: YAMLNode?, iosEnabled: Bool) throws(GorushConfigImport.Problem) {
        let enabled = try bool(core?["enabled"], "core.enabled") ?? true
        note("core.enabled", core?["enabled"], .builtIn, enabled ? "the relay always serves its HTTP API" :
                "gorush then serves gRPC only; the relay serves HTTP only (see grpc)")
        let address = try string(core?["address"], "core.address") ?? ""
        let host = address.isEmpty ? "0.0.0.0" : address
        listen.append(JSONMember(key: "host", value: .string(host)))
        note("core.address", core?["address"], .mapped, relay: "/listen/host",
             address.isEmpty ? "empty in gorush means every address: 0.0.0.0 (write 127.0.0.1 to keep it local)" : "the same address")
        let portText = try string(core?["port"], "core.port") ?? "8088"
        guard let port = Int(portText), (0...65535).contains(port) else {
            throw problem(core?["port"], "core.port", "'\(portText)' is not a port", fix: "write a number from 1 to 65535")
        }
        let ssl = try bool(core?["ssl"], "core.ssl") ?? false
        if ssl {
            listen.append(JSONMember(key: "port", value: .null))
            listen.append(JSONMember(key: "tls_port", value: .number(JSONNumber(port))))
            note("core.port", core?["port"], .mapped, relay: "/listen/tls_port", "with core.ssl the port speaks TLS; no cleartext port")
        } else {
            listen.append(JSONMember(key: "port", value: .number(JSONNumber(port))))
            note("core.port", core?["port"], .mapped, relay: "/listen/port", "cleartext HTTP/1.1 and HTTP/2 (prior knowledge)")
        }
        note("core.ssl", core?["ssl"], ssl ? .mapped : .builtIn, relay: ssl ? "/listen/tls_port" : nil,
             ssl ? "TLS with the certificate and key below" : "no TLS: put a TLS proxy in front, or set listen.tls_port with a certificate")
        for (key, relayKey) in [("cert_path", "certificate"), ("key_path", "private_key")] {
            let path = try string(core?[key], "core.\(key)") ?? ""
            if ssl && !path.isEmpty {
                listen.append(JSONMember(key: relayKey, value: .string(path)))
                note("core.\(key)", core?[key], .mapped, relay: "/listen/\(relayKey)", "the path as written: relay.json resolves it from its own directory, gorush from its working directory")
            } else {
                note("core.\(key)", core?[key], .none, ssl ? "empty: write the \(relayKey) path into listen.\(relayKey)" : "unused without core.ssl")
            }
        }
        for key in ["cert_base64", "key_base64"] {
            note("core.\(key)", core?[key], .secret, "inline key material is never copied: write it to a PEM file (base64 -d) and set listen.\(key == "cert_base64" ? "certificate" : "private_key")")
        }
        let sync = try bool(core?["sync"], "core.sync") ?? false
        note("core.sync", core?["sync"], .elsewhere, sync ? "per request: add ?sync=true to /gorush/\(app)/api/push (the relay waits at most 30 s)" : "per request: ?sync=true when wanted")
        if let max = try int(core?["max_notification"], "core.max_notification"), max > 0 {
            limits.append(JSONMember(key: "max_notifications", value: .number(JSONNumber(max))))
            note("core.max_notification", core?["max_notification"], .mapped, relay: "/limits/max_notifications", "notifications per request")
        } else {
            note("core.max_notification", core?["max_notification"], .builtIn, "not set: the relay's default, 100, as gorush's")
        }
        let workerNum = try int(core?["worker_num"], "core.worker_num") ?? 0
        if workerNum > 0 && !iosEnabled {
            workers.append(JSONMember(key: "concurrency", value: .number(JSONNumber(workerNum))))
            note("core.worker_num", core?["worker_num"], .mapped, relay: "/workers/concurrency", "sends in flight at once, all apps together")
        } else {
            note("core.worker_num", core?["worker_num"], .builtIn, iosEnabled ? "workers.concurrency comes from ios.max_concurrent_pushes (sends in flight)"
                 : "0 in gorush means one worker per CPU; the relay's default is 64 sends in flight")
        }
        note("core.queue_num", core?["queue_num"], .builtIn, "gorush's in-memory ring (8192, lost on restart); the relay queues on disk in --data, queue.capacity 2,000,000 targets by default")
        note("core.shutdown_timeout", core?["shutdown_timeout"], .builtIn, "SIGTERM stops taking work and finishes the sends in flight; what is queued stays on disk for the next start")
        if let url = try string(core?["feedback_hook_url"], "core.feedback_hook_url"), !url.isEmpty {
            webhook = [JSONMember(key: "url", value: .string(url)), JSONMember(key: "secret_file", value: .string("webhook.secret"))]
            note("core.feedback_hook_url", core?["feedback_hook_url"], .mapped, relay: "/apps/\(app)/webhook/url",
                 "every result, dead token and finished push, batched and signed; create the secret: openssl rand -hex 32 > webhook.secret, and check Pushlab-Signature in the receiver (docs/relay.md \"Webhooks\")")
        } else {
            note("core.feedback_hook_url", core?["feedback_hook_url"], .none, "no webhook")
        }
        note("core.feedback_timeout", core?["feedback_timeout"], .builtIn, "a webhook POST that fails is retried after 0.5, 1, 2 and 4 s")
        note("core.feedback_header", core?["feedback_header"], .secret, "not copied: the relay signs each webhook POST with HMAC-SHA256 (webhook.secret_file) instead of a shared header")
        note("core.mode", core?["mode"], .none, "gin's debug/release mode; the relay has one mode")
        note("core.http_proxy", core?["http_proxy"], .elsewhere, "set HTTPS_PROXY in the relay's environment (libcurl reads it for APNs and FCM)")
        note("core.pid", core?["pid"], .none, "no pid file: run the relay under a supervisor (systemd) that knows its pid")
        note("core.auto_tls", core?["auto_tls"], .none, "no Let's Encrypt client: give listen.certificate and listen.private_key, or a TLS proxy")
        rest(core, "core", known: ["enabled", "address", "port", "ssl", "cert_path", "key_path", "cert_base64", "key_base64", "sync", "max_notification",
                                   "worker_num", "queue_num", "shutdown_timeout", "feedback_hook_url", "feedback_timeout", "feedback_header", "mode",
                                   "http_proxy", "pid", "auto_tls"])
    }

    mutating func grpc(_ grpc: YAMLNode?) throws(GorushConfigImport.Problem) {
        let enabled = try bool(grpc?["enabled"], "grpc.enabled") ?? false
        note("grpc.enabled", grpc?["enabled"], .none, enabled ? "gRPC Send is not served: move those clients to POST /gorush/\(app)/api/push" : "gRPC off, as in the relay")
        note("grpc.port", grpc?["port"], .none, "no gRPC port")
        rest(grpc, "grpc", known: ["enabled", "port"])
    }

    mutating func api(_ api: YAMLNode?) throws(GorushConfigImport.Problem) {
        let routes: [(String, String, String)] = [
            ("push_uri", "/api/push", "/gorush/\(app)/api/push"), ("stat_go_uri", "/api/stat/go", "/gorush/\(app)/api/stat/go"),
            ("stat_app_uri", "/api/stat/app", "/gorush/\(app)/api/stat/app"), ("config_uri", "/api/config", "/v1/admin/config (admin key, no secrets)"),
            ("sys_stat_uri", "/sys/stats", "not served: /metrics"), ("metric_uri", "/metrics", "/metrics (an admin key unless metrics.require_admin_key is false)"),
            ("health_uri", "/healthz", "/gorush/\(app)/healthz and /healthz"),
        ]
        for (key, standard, relayRoute) in routes {
            let given = try string(api?[key], "api.\(key)")
            let moved = given != nil && given != standard
            note("api.\(key)", api?[key], .builtIn, "\(relayRoute)\(moved ? "; gorush served it at \(given!): point those clients at the relay's route" : "")")
        }
        rest(api, "api", known: Set(routes.map(\.0)))
    }

    mutating func android(_ android: YAMLNode?, enabled: Bool) throws(GorushConfigImport.Problem) {
        let keyPath = try string(android?["key_path"], "android.key_path") ?? ""
        let credential = try string(android?["credential"], "android.credential") ?? ""
        note("android.enabled", android?["enabled"], enabled ? .mapped : .none, relay: enabled ? "/apps/\(app)/fcm" : nil,
             enabled ? "the app sends to FCM" : "Android off: the app has no fcm section")
        if enabled {
            if !keyPath.isEmpty {
                fcm = [JSONMember(key: "service_account", value: .string(keyPath))]
                note("android.key_path", android?["key_path"], .mapped, relay: "/apps/\(app)/fcm/service_account",
                     "the service-account file, by path (relay.json resolves it from its own directory)")
            } else if !credential.isEmpty {
                throw problem(android?["credential"], "android.credential", "the service account is inline in the YAML; the relay reads it from a file and never copies a secret",
                              fix: "save that JSON to a file (e.g. firebase.json, mode 600), set android.key_path to it and run again")
            } else {
                throw problem(android ?? nil, "android.key_path", "Android is enabled but no key_path is set (gorush would fall back to GOOGLE_APPLICATION_CREDENTIALS)",
                              fix: "set android.key_path to the service-account JSON file, or android.enabled: false")
            }
        } else {
            note("android.key_path", android?["key_path"], .none, "unused: Android is off")
        }
        note("android.credential", android?["credential"], .secret, credential.isEmpty ? "empty" :
                (keyPath.isEmpty ? "inline service account: never copied" : "inline service account: never copied; gorush prefers it over key_path — make sure \(keyPath) holds the same account"))
        rest(android, "android", known: ["enabled", "key_path", "credential", "max_retry"])
    }

    mutating func huawei(_ huawei: YAMLNode?) throws(GorushConfigImport.Problem) {
        let enabled = try bool(huawei?["enabled"], "huawei.enabled") ?? false
        note("huawei.enabled", huawei?["enabled"], .none, enabled ? "Huawei HMS is not supported: platform 3 notifications are refused with 400; send them to HMS directly"
                                                                : "off, as in the relay (platform 3 is refused with 400)")
        note("huawei.appid", huawei?["appid"], .none, "no HMS")
        note("huawei.appsecret", huawei?["appsecret"], .secret, "no HMS; never copied")
        note("huawei.max_retry", huawei?["max_retry"], .none, "no HMS")
        rest(huawei, "huawei", known: ["enabled", "appid", "appsecret", "max_retry"])
    }

    mutating func queue(_ queue: YAMLNode?) throws(GorushConfigImport.Problem) {
        let engine = try string(queue?["engine"], "queue.engine") ?? "local"
        let redis = queue?["redis"]
        switch engine {
        case "local":
            note("queue.engine", queue?["engine"], .builtIn, "the relay's queue is SQLite in --data: nothing acknowledged is lost on a restart or kill -9")
        case "redis":
            let addr = try string(redis?["addr"], "queue.redis.addr") ?? "127.0.0.1:6379"
            let db = try int(redis?["db"], "queue.redis.db") ?? 0
            note("queue.engine", queue?["engine"], .elsewhere, "start every relay node with --queue redis://\(addr)\(db == 0 ? "" : "/\(db)") (docs/relay.md \"Running several nodes\")")
        default:
            note("queue.engine", queue?["engine"], .none, "\(engine) is not supported: the relay queues in SQLite (one node) or Redis (several nodes)")
        }
        note("queue.nsq", queue?["nsq"], .none, "no NSQ")
        note("queue.nats", queue?["nats"], .none, "no NATS")
        if case .mapping(let pairs)? = redis?.value {
            for (key, value) in pairs {
                let full = "queue.redis.\(key)"
                switch key {
                case "addr", "db": note(full, value, engine == "redis" ? .elsewhere : .none, engine == "redis" ? "part of the --queue URL" : "unused: queue.engine is \(engine)")
                case "password": note(full, value, .secret, "never copied: put it in the --queue URL yourself (redis://USER:PASSWORD@HOST:PORT)")
                case "username": note(full, value, engine == "redis" ? .elsewhere : .none, engine == "redis" ? "part of the --queue URL (redis://USER:PASSWORD@HOST:PORT)" : "unused: queue.engine is \(engine)")
                case "with_tls": note(full, value, .none, "the relay's Redis client speaks plain TCP: reach a TLS-only Redis through a local tunnel")
                case "group", "consumer", "stream_name": note(full, value, .builtIn, "the relay names its own streams and consumer group (docs/redis.md)")
                default: note(full, value, .unknown, "not a gorush v1.22.0 setting; ignored")
                }
            }
        }
        rest(queue, "queue", known: ["engine", "nsq", "nats", "redis"])
    }

    mutating func ios(_ ios: YAMLNode?, enabled: Bool) throws(GorushConfigImport.Problem) {
        note("ios.enabled", ios?["enabled"], enabled ? .mapped : .none, relay: enabled ? "/apps/\(app)/apns" : nil,
             enabled ? "the app sends to APNs" : "iOS off: the app has no apns section")
        let keyPath = try string(ios?["key_path"], "ios.key_path") ?? ""
        let keyBase64 = try string(ios?["key_base64"], "ios.key_base64") ?? ""
        let keyID = try string(ios?["key_id"], "ios.key_id") ?? ""
        let teamID = try string(ios?["team_id"], "ios.team_id") ?? ""
        let production = try bool(ios?["production"], "ios.production") ?? false
        if enabled {
            guard !keyPath.isEmpty else {
                if !keyBase64.isEmpty {
                    throw problem(ios?["key_base64"], "ios.key_base64", "the key is inline in the YAML; the relay reads it from a file and never copies a secret",
                                  fix: "decode it into a file (base64 -d > AuthKey.p8), set ios.key_path to it and run again")
                }
                throw problem(ios, "ios.key_path", "iOS is enabled but no key_path is set", fix: "set ios.key_path to the .p8 key or the .p12/.pem certificate")
            }
            guard let bundleID, !bundleID.isEmpty else {
                throw problem(ios?["enabled"], "ios.enabled", "the relay needs the app's bundle id (gorush takes it per request as `topic`; without one APNs answers MissingTopic)",
                              fix: "run again with --bundle-id com.example.app")
            }
            var a: [JSONMember] = []
            let lower = keyPath.lowercased()
            if lower.hasSuffix(".p8") {
                guard !keyID.isEmpty, !teamID.isEmpty else {
                    throw problem(ios?["key_id"] ?? ios, "ios.key_id", "a .p8 key needs key_id and team_id", fix: "set ios.key_id and ios.team_id from the developer account")
                }
                a.append(JSONMember(key: "key", value: .string(keyPath)))
                a.append(JSONMember(key: "key_id", value: .string(keyID)))
                a.append(JSONMember(key: "team_id", value: .string(teamID)))
                note("ios.key_path", ios?["key_path"], .mapped, relay: "/apps/\(app)/apns/key", "the .p8 key, by path")
                note("ios.key_id", ios?["key_id"], .mapped, relay: "/apps/\(app)/apns/key_id", "the key's id")
                note("ios.team_id", ios?["team_id"], .mapped, relay: "/apps/\(app)/apns/team_id", "the team id")
            } else if lower.hasSuffix(".p12") || lower.hasSuffix(".pem") {
                a.append(JSONMember(key: "certificate", value: .string(keyPath)))
                note("ios.key_path", ios?["key_path"], .mapped, relay: "/apps/\(app)/apns/certificate", "the provider certificate, by path")
                note("ios.key_id", ios?["key_id"], .none, "unused with a certificate")
                note("ios.team_id", ios?["team_id"], .none, "unused with a certificate")
            } else {
                throw problem(ios?["key_path"], "ios.key_path", "'\(keyPath)' is not a .p8, .p12 or .pem file (gorush refuses it too)", fix: "point it at the .p8 key or the .p12/.pem certificate")
            }
            a.append(JSONMember(key: "bundle_id", value: .string(bundleID)))
            a.append(JSONMember(key: "environment", value: .string(production ? "production" : "sandbox")))
            apns = a
            note("ios.production", ios?["production"], .mapped, relay: "/apps/\(app)/apns/environment",
                 production ? "production; a notification's development: true still goes to the sandbox" : "sandbox; a notification's production: true still goes to production")
            if let mcp = try int(ios?["max_concurrent_pushes"], "ios.max_concurrent_pushes"), mcp > 0 {
                workers.append(JSONMember(key: "concurrency", value: .number(JSONNumber(mcp))))
                note("ios.max_concurrent_pushes", ios?["max_concurrent_pushes"], .mapped, relay: "/workers/concurrency", "sends in flight at once (all apps together)")
            } else {
                note("ios.max_concurrent_pushes", ios?["max_concurrent_pushes"], .builtIn, "not set: the relay's default, 64 sends in flight")
            }
        } else {
            for key in ["key_path", "key_id", "team_id", "production", "max_concurrent_pushes"] {
                note("ios.\(key)", ios?[key], .none, "unused: iOS is off")
            }
        }
        note("ios.key_base64", ios?["key_base64"], .secret, "inline key material is never copied: decode it into a file and use ios.key_path")
        note("ios.key_type", ios?["key_type"], .builtIn, "the relay tells the kind from the file (.p8 key, .p12 or PEM certificate)")
        note("ios.password", ios?["password"], .secret, "never copied: put the .p12 password in a file (apps.\(app).apns.certificate_password_file) or in PUSHLAB_CERT_PASSWORD")
        rest(ios, "ios", known: ["enabled", "key_path", "key_base64", "key_type", "password", "production", "max_concurrent_pushes", "max_retry", "key_id", "team_id"])
    }

    mutating func retries(ios: YAMLNode?, android: YAMLNode?, iosEnabled: Bool, androidEnabled: Bool) throws(GorushConfigImport.Problem) {
        let iosRetry = try int(ios?["max_retry"], "ios.max_retry") ?? 0
        let androidRetry = try int(android?["max_retry"], "android.max_retry") ?? 0
        let most = max(iosEnabled ? iosRetry : 0, androidEnabled ? androidRetry : 0)
        if most > 0 {
            let attempts = min(most + 1, 100)
            workers.append(JSONMember(key: "max_attempts", value: .number(JSONNumber(attempts))))
            for (key, node) in [("ios.max_retry", ios?["max_retry"]), ("android.max_retry", android?["max_retry"])] {
                note(key, node, .mapped, relay: "/workers/max_attempts", "\(attempts) attempts per target (the larger retry count + 1), with backoff; reasons that must not be retried (BadDeviceToken, UNREGISTERED) are final at once")
            }
        } else {
            for (key, node) in [("ios.max_retry", ios?["max_retry"]), ("android.max_retry", android?["max_retry"])] {
                note(key, node, .builtIn, "0 in gorush: no retry; the relay's default is 5 attempts, and only for errors worth retrying (5xx, 429, no answer)")
            }
        }
    }

    mutating func log(_ log: YAMLNode?) throws(GorushConfigImport.Problem) {
        for key in ["format", "access_log", "access_level", "error_log", "error_level"] {
            note("log.\(key)", log?[key], .none, "the relay logs one line per push and per problem to stderr (--quiet: problems only); redirect it where you want it")
        }
        note("log.hide_token", log?["hide_token"], .builtIn, "the relay's log always shortens tokens to 8 characters")
        note("log.hide_messages", log?["hide_messages"], .builtIn, "the relay never logs a request body")
        rest(log, "log", known: ["format", "access_log", "access_level", "error_log", "error_level", "hide_token", "hide_messages"])
    }

    mutating func stat(_ stat: YAMLNode?) throws(GorushConfigImport.Problem) {
        let engine = try string(stat?["engine"], "stat.engine") ?? "memory"
        note("stat.engine", stat?["engine"], .builtIn, "counters live in the relay process: /gorush/\(app)/api/stat/app and /metrics\(engine == "memory" ? "" : " (gorush kept them in \(engine); the per-target results themselves are on disk)")")
        if case .mapping(let pairs)? = stat?.value {
            for (key, value) in pairs where key != "engine" {
                if case .mapping(let inner) = value.value {
                    for (k, v) in inner {
                        note("stat.\(key).\(k)", v, k == "password" ? .secret : .none, k == "password" ? "never copied; no stat store" : "no separate stat store")
                    }
                } else {
                    note("stat.\(key)", value, .unknown, "not a gorush v1.22.0 setting; ignored")
                }
            }
        }
    }

    func relayJSON() -> JSONValue {
        var top: [JSONMember] = [JSONMember(key: "listen", value: .object(JSONObject(listen)))]
        if !limits.isEmpty { top.append(JSONMember(key: "limits", value: .object(JSONObject(limits)))) }
        // One concurrency: the larger of the two that were given.
        var w = workers
        let concurrency = w.filter { $0.key == "concurrency" }.compactMap { $0.value.numberValue?.intValue }.max()
        w.removeAll { $0.key == "concurrency" }
        if let concurrency { w.insert(JSONMember(key: "concurrency", value: .number(JSONNumber(concurrency))), at: 0) }
        if !w.isEmpty { top.append(JSONMember(key: "workers", value: .object(JSONObject(w)))) }
        var appMembers: [JSONMember] = []
        if let apns { appMembers.append(JSONMember(key: "apns", value: .object(JSONObject(apns)))) }
        if let fcm { appMembers.append(JSONMember(key: "fcm", value: .object(JSONObject(fcm)))) }
        if let webhook { appMembers.append(JSONMember(key: "webhook", value: .object(JSONObject(webhook)))) }
        top.append(JSONMember(key: "apps", value: .object(JSONObject([JSONMember(key: app, value: .object(JSONObject(appMembers)))]))))
        return .object(JSONObject(top))
    }
}
