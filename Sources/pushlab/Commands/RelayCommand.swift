import Foundation
import PushAuth
import PushConsole
import PushGateway
import PushHTTP
import PushRedis
import PushRelay
import PushStore

/// `pushlab relay --config relay.json`: the push gateway a team runs (docs/relay.md).
enum RelayCommand: Command {
    static let path = ["relay"]
    static let summary = "Run the push relay: an HTTP API (native and gorush-compatible) with a durable queue in front of APNs and FCM."
    static let positionalUsage = ""
    static let discussion = """
        Serves POST /v1/apps/{app}/pushes (202 once durably queued), GET /v1/pushes/{id}[?wait=5s], \
        GET /v1/apps/{app}/deliveries and …/invalid-tokens, gorush's /gorush/{app}/api/push, /healthz \
        and /metrics, on loopback by default. Pushes wait in a SQLite queue in --data; after a crash or \
        kill -9 the relay resumes from it. Several nodes share one Redis Streams queue with --queue \
        redis://HOST:PORT and --node NAME (docs/relay.md \"Running several nodes\"), or a Redis Cluster with \
        --queue redis-cluster://HOST:PORT,HOST:PORT,… (one stream per master; docs/redis.md \"Redis Cluster\"). SIGINT/SIGTERM stop taking requests and drain the sends in \
        flight (at most --drain-timeout, then exit 1 saying what was pending); SIGQUIT prints what the node waits on. Apps whose target is "emulator" go to pushlab's gateway emulator, started inside the \
        relay. API keys: 'pushlab relay keys create --data DIR --app NAME'. Config and API: docs/relay.md. \
        --console serves the web console at /console on the relay's port: each accepted push and each \
        target's final result (and the built-in emulator's answers) in the live log, a send form that \
        queues through the native API, the tokens delivered to with the invalid-token feed, and the \
        /metrics counters (docs/console.md).
        """
    static let config = Option.string("--config", name: "FILE", help: "relay.json: listen address, apps and their credentials (docs/relay.md).")
    static let data = Option.value(["--data"], name: "DIR", help: "Queue and API keys live here.", kind: .string,
                                   computed: "$XDG_DATA_HOME/pushlab/relay") { defaultDataDirectory }
    static let port = Option.int("--port", name: "PORT", help: "Override listen.port (cleartext; 0 picks a free one).", in: 0...65535)
    static let certs = Option.value(["--certs"], name: "DIR", help: "Certificates of the built-in emulator (apps with target \"emulator\").", kind: .string,
                                    computed: "certs of pushlab's files") { ProjectFiles.defaultFile("certs") }
    static let queue = Option.string("--queue", name: "URL", help: "redis://[:PASSWORD@]HOST:PORT[/DB]: share one Redis Streams queue with other nodes (docs/relay.md \"Running several nodes\"); redis-cluster://[:PASSWORD@]HOST:PORT,HOST:PORT,…: the same on a Redis Cluster, one stream per master (docs/redis.md \"Redis Cluster\"); default: the embedded SQLite queue in --data.")
    static let node = Option.value(["--node"], name: "NAME", help: "With --queue: this node's name (its consumer in the group; restart a node under the same name to resume its work at once).",
                                   kind: .string, computed: "HOST-PID") { "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)" }
    static let retention = Option.duration("--retention", help: "With --queue: how long a finished push's status, results and idempotency key stay in Redis before they expire (GET /v1/pushes/{id} then answers 404; the delivery log keeps the results).",
                                           default: RedisPushQueue.Configuration(capacity: 1).retention)
    static let drainTimeout = Option.duration("--drain-timeout", help: "The bound on a stop (SIGINT/SIGTERM): past it the node prints what it still waits on, gives back the targets claimed ahead and exits with status 1; what it had not recorded is sent again after its lease (docs/relay.md \"Stopping a node\").",
                                              default: .seconds(20))
    static let checkOnly = Option.flag("--check", help: "Check the config and the credentials, print a summary and exit.")
    static let quiet = Option.flag("--quiet", help: "No line per push.")
    static let accessLog = Option.flag("--access-log", help: "One line per API request on stderr: method, path (no query), status, time taken.")

    static let options: [any OptionDeclaration] = [config, data, port, certs, queue, node, retention, drainTimeout, checkOnly, quiet, accessLog] + ConsoleSetup.relayOptions

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        // Caught from the start: a SIGINT or SIGTERM sent as soon as the banner shows is kept, not
        // lost to the default action (or dropped while the handler is being set up).
        let signals = TerminationSignals()
        let stateDump = StateDumpSignal()
        let drainLimit = try args[Self.drainTimeout]
        guard drainLimit > .zero else {
            throw UsageError("--drain-timeout must be more than 0", fix: "pass a duration such as 20s (the default)")
        }
        guard let path = try args[Self.config] else {
            throw UsageError("--config is required", fix: "pass --config relay.json (docs/relay.md shows one)")
        }
        var config: RelayConfig
        do { config = try RelayConfig.load(path: path) } catch { throw usage(error) }
        if let port = try args[Self.port] { config.listen.port = port }
        let data = try args[Self.data]
        let quiet = args[Self.quiet]
        let console = try ConsoleSetup.relayConsole(args)
        // Keys and certificates are checked before anything starts (the relay loads them again).
        let credentials: [String: AppCredentials]
        do { credentials = try Relay.loadCredentials(config) } catch { throw usage(error) }
        let queue = try await redisQueue(args, capacity: config.queue.capacity)
        if args[checkOnly] {
            await queue?.close()
            return try check(config, path: path, credentials: credentials, data: data, certs: try args[certs])
        }

        var gateway: RelayEmulator?
        var emulator: EmulatorEndpoints?
        if config.apps.contains(where: { $0.apns?.target == .emulator || $0.fcm?.target == .emulator }) {
            do {
                let e = try await RelayEmulator(certs: try args[certs], observer: console?.gatewayFeed, quiet: quiet,
                                                acceptsCertificates: config.apps.contains(where: \.authenticatesWithCertificateAtEmulator))
                gateway = e
                emulator = e.endpoints
            } catch {
                await queue?.close()
                // One fix line: the error's own when it has one (a key file names its fix).
                let placement = ProjectFiles.root == nil ? ProjectFiles.missingFix : "pass --certs DIR holding server.pem, server.key, ca.pem and the dev keys"
                switch error {
                case let error as KeyLoadError:
                    throw UsageError("cannot start the built-in emulator: \(error.source.map { $0 + ": " } ?? "")\(error.reason)", fix: "\(error.fix); \(placement)")
                case let error as GatewayConfigError:
                    throw UsageError("cannot start the built-in emulator: \(error.reason)", fix: "\(error.fix); \(placement)")
                default:
                    throw UsageError("cannot start the built-in emulator: \(error)", fix: placement)
                }
            }
        }
        let relay: Relay
        var accessLog: (@Sendable (String) -> Void)?
        if args[Self.accessLog] { accessLog = { line in printError("relay: access: " + line) } }
        do {
            relay = try Relay(config: config, dataDirectory: data, queue: queue, cluster: queue, emulator: emulator, log: { line in if !quiet { printError(line) } },
                              accessLog: accessLog,
                              observer: console.map { RelayLogFeed(log: $0.log) }) { router in console?.register(on: &router) }
        } catch {
            await queue?.close()
            await gateway?.stop()
            if let error = error as? RelayConfigError { throw usage(error) }
            throw UsageError("\(error)", fix: "check relay.json and --data \(data)")
        }
        console?.attach(relay: relay)
        stateDump.answer { relay.stateReport() }
        do { try await relay.start() } catch {
            await relay.stop()
            await gateway?.stop()
            throw UsageError("cannot start: \(error)", fix: "pick another port (0 picks a free one) or check --data \(data)")
        }
        try announce(relay, gateway: gateway, queue: queue, console: console, args)
        let signal = await signals.wait()
        printError("pushlab relay: signal \(signal), draining the sends in flight (at most \(drainLimit.compactText); kill -QUIT \(ProcessInfo.processInfo.processIdentifier) shows what it waits on)")
        await stop(relay, gateway: gateway, console: console, limit: drainLimit)
        return ExitStatus.success
    }
}

extension RelayCommand {
    /// The banner: where the relay listens, its emulator, its queue, its console.
    static func announce(_ relay: Relay, gateway: RelayEmulator?, queue: RedisPushQueue?, console: Console?, _ args: ParsedArguments) throws {
        if let url = relay.addresses?.cleartextURL { emit("relay: listening on \(url) (h2c, http/1.1)") }
        if let url = relay.addresses?.tlsURL { emit("relay: listening on \(url) (h2, http/1.1)") }
        if let gateway { emit("relay: emulator \(gateway.summary)") }
        if let queue {
            let lanes = queue.isCluster ? " (\(queue.lanes.count) streams: \(queue.lanes.map(\.stream).joined(separator: ", ")))" : ""
            emit("relay: queue \(queue.location)\(lanes) as node \(queue.node)")
        }
        if let console, let url = relay.addresses?.cleartextURL ?? relay.addresses?.tlsURL {
            emit(try ConsoleSetup.announcement(url: url + "/console", console, args))
        }
    }

    /// The graceful stop after SIGINT/SIGTERM, bounded by `limit` (`abandonStop` past it).
    static func stop(_ relay: Relay, gateway: RelayEmulator?, console: Console?, limit: Duration) async {
        let deadline = StopDeadline(limit: limit) { abandonStop(relay, limit: limit) }
        console?.stop()
        await relay.stop()
        await gateway?.stop()
        deadline.finish()
        let missed = relay.missedWakeups
        if missed > 0 {
            printError("pushlab relay: its HTTP client loops missed \(missed) wake-ups (each recovered within 1 s); this is a bug, please report it")
        }
    }

    /// The stop overran `--drain-timeout` (on the deadline's own thread): say what was still
    /// pending, give back what can be given back (within 5 s), and exit 1.
    static func abandonStop(_ relay: Relay, limit: Duration) -> Never {
        printError("pushlab relay: the stop overran its bound (--drain-timeout \(limit.compactText)); still pending:\n  " + relay.stateReport())
        let given = StopDeadline.run(within: 5) { await relay.abandonStop() }
        printError("pushlab relay: " + (given ?? "could not give back the targets claimed ahead within 5 s; they and the sends in flight are left to their lease"))
        printError("pushlab relay: exiting with status 1 before the drain finished (nothing acknowledged is lost: what was not recorded is sent again after its lease)")
        _exit(ExitStatus.failure)
    }

    /// The relay's data when `--data` is not given: user data (`make uninstall` leaves it).
    static var defaultDataDirectory: String { UserDirectories.data() + "/relay" }

    /// A relay.json problem as the CLI prints it: the file and pointer with the problem, then its fix.
    static func usage(_ error: RelayConfigError) -> UsageError {
        UsageError("\(error.file)\(error.pointer.isEmpty ? "" : " \(error.pointer)"): \(error.message)", fix: error.fix)
    }

    /// The cluster's Redis queue with `--queue`, prepared; nil for the embedded SQLite queue.
    static func redisQueue(_ args: ParsedArguments, capacity: Int) async throws -> RedisPushQueue? {
        guard let url = try args[queue] else {
            if let flag = ([node, retention] as [any OptionDeclaration]).first(where: { args.isGiven($0) })?.spec.primary {
                throw UsageError("\(flag) needs --queue redis://…", fix: "\(flag) only matters when nodes share a Redis queue")
            }
            return nil
        }
        let target = try queueTarget(url, flag: "--queue")
        let node = try args[Self.node]
        guard !node.isEmpty, node.allSatisfy({ $0.isLetter || $0.isNumber || "._-".contains($0) }) else {
            throw UsageError("--node '\(node)': use letters, digits, '.', '_' and '-' only", fix: "e.g. --node relay-1")
        }
        var configuration = RedisPushQueue.Configuration(capacity: capacity)
        let retention = try args[Self.retention]
        guard retention > .zero else { throw UsageError("--retention must be more than 0", fix: "e.g. --retention 168h (7 days, the default)") }
        configuration.retention = retention
        let queue: RedisPushQueue
        switch target {
        case .single(let endpoint): queue = RedisPushQueue(endpoint: endpoint, configuration: configuration, clientName: node)
        case .cluster(let cluster): queue = RedisPushQueue(cluster: cluster, configuration: configuration, clientName: node)
        }
        do { try await queue.prepare() } catch {
            await queue.close()
            throw UsageError("--queue \(queue.location): \(error)",
                             fix: "start redis-server (docs/relay.md \"Running several nodes\", docs/redis.md \"Redis Cluster\") or check the URL")
        }
        return queue
    }

    /// Where `--queue` points: one Redis (`redis://`) or a Redis Cluster (`redis-cluster://`).
    enum QueueTarget {
        case single(RedisEndpoint)
        case cluster(RedisClusterEndpoint)
    }

    /// Parses a `--queue` URL; the error names the flag and shows both forms.
    static func queueTarget(_ url: String, flag: String) throws -> QueueTarget {
        do {
            if url.hasPrefix(RedisClusterEndpoint.scheme) { return .cluster(try RedisClusterEndpoint(url: url)) }
            return .single(try RedisEndpoint(url: url))
        } catch {
            throw UsageError("\(flag): \(error.description)",
                             fix: "e.g. \(flag) redis://127.0.0.1:6379/0 (one Redis) or \(flag) redis-cluster://127.0.0.1:7000,127.0.0.1:7001 (a Redis Cluster); leave it out for the embedded SQLite queue")
        }
    }

    /// `--check`: the config, every credential and webhook secret, the built-in emulator's
    /// certificates and the data directory, reported without creating or starting anything.
    static func check(_ config: RelayConfig, path: String, credentials: [String: AppCredentials], data: String, certs: String) throws -> Int32 {
        if config.apps.contains(where: { $0.apns?.target == .emulator || $0.fcm?.target == .emulator }) {
            for file in ["server.pem", "server.key", "ca.pem"] where !FileManager.default.isReadableFile(atPath: certs + "/" + file) {
                throw UsageError("--certs \(certs): cannot read \(file) for the built-in emulator",
                                 fix: ProjectFiles.root == nil ? ProjectFiles.missingFix : "pass --certs DIR holding server.pem, server.key and ca.pem")
            }
        }
        var isDirectory: ObjCBool = false
        let dataNote: String
        if FileManager.default.fileExists(atPath: data, isDirectory: &isDirectory) {
            guard isDirectory.boolValue, FileManager.default.isWritableFile(atPath: data) else {
                throw UsageError("--data \(data): not a writable directory", fix: "pass a directory the relay may write, e.g. --data relay-data")
            }
            dataNote = "data \(data)"
        } else {
            // The nearest directory that exists must be writable (the relay creates the rest).
            var parent = FilePaths.parent(of: data)
            while !parent.isEmpty, parent != "/", !FileManager.default.fileExists(atPath: parent) { parent = FilePaths.parent(of: parent) }
            guard FileManager.default.isWritableFile(atPath: parent.isEmpty ? "." : parent) else {
                throw UsageError("--data \(data): cannot be created in \(parent.isEmpty ? "." : parent)", fix: "create it first, or pass a directory the relay may write")
            }
            dataNote = "data \(data) (created at start)"
        }
        for app in config.apps {
            var parts: [String] = []
            if let a = app.apns, let summary = credentials[app.name]?.apnsSummary {
                let hosts = a.url ?? (a.environmentURLs.isEmpty ? a.target.rawValue
                    : a.environmentURLs.sorted { $0.key.rawValue > $1.key.rawValue }.map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", "))
                parts.append("\(summary) topic \(a.bundleID) (\(a.environment.rawValue), \(hosts))")
            }
            if let f = app.fcm { parts.append("FCM \(f.projectID ?? "project from service account") (\(f.url ?? f.target.rawValue))") }
            emit("\(app.name): " + parts.joined(separator: "; "))
        }
        emit("\(path): ok, \(config.apps.count) app\(config.apps.count == 1 ? "" : "s"), \(dataNote)")
        return ExitStatus.success
    }
}

/// `pushlab relay keys create|list|revoke`: API keys, stored hashed in `DATA/keys.sqlite`, or
/// in the cluster's Redis with `--queue redis://…`.
enum RelayKeysCommand: Command {
    static let path = ["relay", "keys"]
    static let summary = "Manage the relay's API keys: create (printed once), list, revoke ID."
    static let positionalUsage = "create|list|revoke [ID]"
    static let positionalCompletion = PositionalCompletion.words(["create", "list", "revoke"])
    static let discussion = """
        create makes a key for one app (--app) or an admin key (--admin) and prints it once; only its \
        SHA-256 hash is stored, so keep it in your secret store. list shows ids (the key's first 12 \
        characters), scopes and labels, never keys. revoke ID disables a key. A running relay sees new \
        and revoked keys at once. With --queue redis://… the keys are the cluster's, kept in its Redis: \
        a key made once works on every node started with that --queue, and a revoke takes effect on all \
        of them at their next request (keys.sqlite in --data is then not used). There a node remembers a \
        key it found live for 1 s, so revoke returns about 1.1 s after Redis removed the key, once no \
        node can still trust an earlier lookup.
        """
    static let data = Option.value(["--data"], name: "DIR", help: "The relay's data directory.", kind: .string,
                                   computed: "$XDG_DATA_HOME/pushlab/relay") { RelayCommand.defaultDataDirectory }
    static let queue = Option.string("--queue", name: "URL", help: "redis://[:PASSWORD@]HOST:PORT[/DB] or redis-cluster://HOST:PORT,…: the cluster's keys, in the Redis its nodes share (the same URL as their --queue).")
    static let app = Option.string("--app", name: "NAME", help: "create: the app the key may push for.")
    static let admin = Option.flag("--admin", help: "create: an admin key (every app, /v1/admin/…).")
    static let label = Option.string("--label", name: "TEXT", help: "create: a note shown by list (who or what uses the key).")
    static let config = Option.string("--config", name: "FILE", help: "create: check that --app is an app of this relay.json.")
    static let json = Option.flag("--json", help: "Print the new key or the list as JSON.")
    static let options: [any OptionDeclaration] = [data, queue, app, admin, label, config, json]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        switch args.positionals.first {
        case "create"?: return try await create(args)
        case "list"?: return try await list(args)
        case "revoke"?: return try await revoke(args)
        default:
            throw UsageError("say create, list or revoke", fix: "e.g. pushlab relay keys create --data relay-data --app myapp")
        }
    }

    static func create(_ args: ParsedArguments) async throws -> Int32 {
        let scope: APIKeyScope
        switch (try args[Self.app], args[admin]) {
        case (let app?, false):
            if let config = try args[Self.config] {
                let parsed: RelayConfig
                do { parsed = try RelayConfig.load(path: config) } catch { throw RelayCommand.usage(error) }
                guard parsed.app(named: app) != nil else {
                    throw UsageError("--app \(app): no such app in \(config)", fix: "use one of: \(parsed.apps.map(\.name).joined(separator: ", "))")
                }
            }
            scope = .app(app)
        case (nil, true): scope = .admin
        default: throw UsageError("pass exactly one of --app NAME and --admin", fix: "e.g. pushlab relay keys create --app myapp")
        }
        let store = try openKeys(args)
        let (key, info) = try await keysCall(store) { try await store.create(scope: scope, label: try args[label]) }
        if args[json] {
            emit(try renderJSON(["key": key, "id": info.id, "scope": info.scope.description]))
        } else {
            emit(key)
            printError("pushlab relay keys: created \(info.id) for \(info.scope); the key above is shown only now")
        }
        return ExitStatus.success
    }

    struct Row: Encodable {
        var id: String
        var scope: String
        var label: String?
        var created: String
        var revoked: String?
    }

    static func list(_ args: ParsedArguments) async throws -> Int32 {
        let formatter = ISO8601DateFormatter()
        let store = try openKeys(args)
        let rows = try await keysCall(store) { try await store.list() }.map {
            Row(id: $0.id, scope: $0.scope.description, label: $0.label, created: formatter.string(from: $0.createdAt),
                revoked: $0.revokedAt.map { formatter.string(from: $0) })
        }
        if args[json] {
            emit(try renderJSON(rows))
        } else {
            for r in rows {
                emit("\(r.id)  \(r.scope.padding(toLength: 20, withPad: " ", startingAt: 0))  \(r.created)  \(r.revoked.map { "revoked \($0)" } ?? "active")  \(r.label ?? "")")
            }
            if rows.isEmpty { emit("no keys; make one with: pushlab relay keys create --app NAME") }
        }
        return ExitStatus.success
    }

    static func revoke(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.count == 2 else {
            throw UsageError("give one key id", fix: "e.g. pushlab relay keys revoke plk_3fK9aQ2x (see pushlab relay keys list)")
        }
        let id = args.positionals[1]
        let store = try openKeys(args)
        guard try await keysCall(store, { try await store.revoke(id: id) }) else {
            throw UsageError("no active key with id \(id)", fix: "see pushlab relay keys list")
        }
        emit("revoked \(id)")
        return ExitStatus.success
    }

    static func openKeys(_ args: ParsedArguments) throws -> APIKeyStore {
        if let url = try args[queue] {
            switch try RelayCommand.queueTarget(url, flag: "--queue") {
            case .single(let endpoint): return APIKeyStore(redis: RedisClient(endpoint: endpoint))
            case .cluster(let cluster):
                return APIKeyStore(redis: RedisClient(cluster: cluster), prefix: RedisQueueLane.sharedPrefix("pushlab"))
            }
        }
        let data = try args[Self.data]
        do { return try APIKeyStore(path: data + "/keys.sqlite") } catch {
            throw UsageError("--data \(data): cannot open keys.sqlite: \(error)", fix: "check the directory and its permissions")
        }
    }

    /// Runs one store call; a Redis that cannot be reached is a usage error naming it.
    static func keysCall<T>(_ store: APIKeyStore, _ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let error as UsageError { throw error } catch {
            throw UsageError("API keys at \(store.location): \(error)", fix: "start redis-server or check --queue (or --data)")
        }
    }
}
