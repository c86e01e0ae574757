import Foundation
import PushAuth
import PushCore
@testable import PushGateway
import PushHTTP
import PushMetrics
import Synchronization

/// The gateway (APNs host, Google host with the collector mounted, as `pushlab serve` wires it)
/// or a standalone collector, built but never started: requests are routed with `Router.match`
/// and answered by the handlers directly, with no sockets.
///
/// A target builds one per host per process and calls `reset()` at the end of each input: the
/// gateway's stores (devices, in-memory records, broadcast channels, access tokens:
/// `Gateway.resetStores`) are emptied and the collector (with its in-memory SQLite store) is
/// dropped, to be built again by the next input that reaches it. So an input's outcome does not
/// depend on the inputs before it (a crash replays from its own file; `FUZZ_CHECK_FRESH=1`
/// answers every input on a new server too and compares, `checkAgainstFresh`) and nothing one
/// input stores outlives it: libFuzzer's malloc/free counts balance, so its leak check only runs
/// when something really leaks. Building the gateway (routers, route values, two unstarted
/// HTTP servers) per input was about 10% of both gateway targets. The expensive parts — keys,
/// the signed provider token and OAuth assertion — are built once (`Fixture`).
public final class InMemoryServer {
    public enum Host: CaseIterable { case apns, google, collector }

    /// What every input shares: the development keys and tokens valid at `time`.
    public struct Fixture: Sendable {
        public let keys: GatewayKeys
        public let time: ManualTimeSource
        public let certs: String
        /// A provider token, substituted for `@APNS_JWT@` in fuzz inputs so the fuzzer reaches
        /// past authentication.
        public let apnsJWT: String
        /// An RS256 OAuth assertion of the development service account (a valid `/token` grant).
        public let oauthGrant: [UInt8]
        /// The development service account's email and project: what an access token issued for
        /// `oauthGrant` is bound to.
        public let oauthClientEmail: String
        public let oauthProjectID: String

        public init(certs: String) throws {
            self.certs = certs
            time = ManualTimeSource()
            keys = try GatewayKeys.developmentDefaults(certsDirectory: certs)
            let now = Int64(time.now.timeIntervalSince1970)
            let apnsKey = try APNsAuthKey.load(path: certs + "/AuthKey_PLDEVKEY01.p8", keyID: "PLDEVKEY01", teamID: "PLDEVTEAM1")
            apnsJWT = try JWT.sign(header: JWTHeader(alg: .es256, kid: apnsKey.keyID), claims: JWTClaims(iss: apnsKey.teamID, iat: now),
                                   key: apnsKey.privateKey)
            let account = try ServiceAccount.load(path: certs + "/fcm-service-account.json")
            let assertion = try JWT.sign(header: JWTHeader(alg: .rs256, kid: account.privateKeyID, typ: "JWT"),
                                         claims: JWTClaims(iss: account.clientEmail, aud: ["https://127.0.0.1/token"],
                                                           scope: Self.fcmScope, iat: now, exp: now + 3600),
                                         key: account.privateKey)
            oauthGrant = Array("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)".utf8)
            oauthClientEmail = account.clientEmail
            oauthProjectID = account.projectID
        }

        static let fcmScope = "https://www.googleapis.com/auth/firebase.messaging"

        /// Checks once, on a throwaway gateway, that `/token` accepts `oauthGrant` and stores a
        /// token for the fixture's account, project and scope: exactly what `fcmAccessToken`
        /// then issues per input without the RS256 exchange (a fixture failing this would fuzz
        /// only the 401 path).
        public func checkGrant() throws {
            let server = try InMemoryServer(fixture: self, host: .google, mountsCollector: false)
            let reply = InMemoryServer.respond(server.router, FuzzRequest(method: "POST", target: "/token", headers: [], body: oauthGrant),
                                               connection: server.makeConnection())
            guard reply.status == 200, let document = try? JSONDocument.parse(reply.body),
                  case .string(let token)? = document.value(at: "/access_token"),
                  let issued = server.gateway?.accessTokens.lookup(token),
                  issued.clientEmail == oauthClientEmail, issued.projectID == oauthProjectID, issued.scopes == [Self.fcmScope]
            else { fatalError("the emulator refused the fuzz harness's own OAuth grant: \(reply.status) \(String(decoding: reply.body, as: UTF8.self))") }
        }
    }

    public let fixture: Fixture
    public let host: Host
    public let router: Router
    /// The gateway (APNs and Google hosts); nil for the standalone collector.
    public let gateway: Gateway?
    private let collector: LazyCollector?
    private var accessToken: String?
    private var nextConnectionID: UInt64 = 1
    /// Each response's `shape` in order, while `recordsTranscript` (for `checkAgainstFresh`).
    public var recordsTranscript = false
    public private(set) var transcript: [String] = []

    /// `mountsCollector: false` leaves the collector off the Google host (FuzzFCMOAuth does not
    /// reach it).
    public init(fixture: Fixture, host: Host, mountsCollector: Bool = true) throws {
        self.fixture = fixture
        self.host = host
        switch host {
        case .apns, .google:
            // The collector is mounted on the Google host only, so an APNs input needs none.
            let served = host == .apns || !mountsCollector ? nil : LazyCollector(time: fixture.time,
                                                                                 credentials: CollectorCredentials(cdpAPIKeys: ["pushlab-demo-cdp-key"]))
            var config = GatewayConfiguration(certificateFile: fixture.certs + "/server.pem", privateKeyFile: fixture.certs + "/server.key")
            config.apnsPort = 0
            config.fcmPort = 0
            let gateway = try Gateway(configuration: config, keys: fixture.keys, devices: DeviceRegistry(), time: fixture.time) { router in
                router.add("GET", "/health") { _ in .now(.json(200, #"{"status":"ok"}"#)) }
                served?.register(on: &router)
            }
            self.gateway = gateway
            collector = served
            router = host == .apns ? gateway.apnsRouter : gateway.googleRouter
        case .collector:
            let standalone = LazyCollector(time: fixture.time, credentials: CollectorCredentials())
            var router = Router()
            standalone.register(on: &router)
            gateway = nil
            collector = standalone
            self.router = router
        }
    }

    /// Flushes the collector's writer. With `maxPendingWrites = 1` each request was committed
    /// inside its handler already; this keeps a change there from leaving work running after
    /// the input.
    public func finish() { collector?.flush() }

    /// Makes the server answer the next input as a new one would: flushes and drops the
    /// collector, empties the gateway's stores (`Gateway.resetStores`), forgets the input's
    /// access token, connection numbers and transcript.
    public func reset() {
        collector?.reset()
        gateway?.resetStores()
        accessToken = nil
        nextConnectionID = 1
        transcript = []
    }

    /// `FUZZ_CHECK_FRESH=1`: targets answer each input on a new server as well and compare.
    public static let checksAgainstFresh = ProcessInfo.processInfo.environment["FUZZ_CHECK_FRESH"] == "1"

    /// Runs `input` on this (reused) server and on a new one for the same host, both recording
    /// transcripts, and stops the process if the answers differ: a reused server that kept
    /// something of an earlier input answers differently from a fresh one.
    public func checkAgainstFresh(mountsCollector: Bool = true, _ input: (InMemoryServer) -> Void) {
        let fresh: InMemoryServer
        do { fresh = try InMemoryServer(fixture: fixture, host: host, mountsCollector: mountsCollector) } catch { fatalError("cannot build a fresh gateway: \(error)") }
        recordsTranscript = true
        fresh.recordsTranscript = true
        input(self)
        input(fresh)
        fresh.finish()
        guard transcript == fresh.transcript else {
            fatalError("a reused \(host) server answered unlike a fresh one:\nreused: \(transcript)\nfresh:  \(fresh.transcript)")
        }
    }

    /// A response with what differs between two servers by chance left out: status, header
    /// names (sorted; values carry dates and ids) and the body with every run of id characters
    /// that holds a digit and is 12 or more long (apns-id, message names, channel ids, tokens)
    /// replaced by `#`.
    static func shape(_ response: ServerResponse) -> String {
        let names = response.headers.map { $0.name.lowercased() }.sorted().joined(separator: ",")
        var body: [UInt8] = []
        var run: [UInt8] = []
        func endRun() {
            if run.count >= 12, run.contains(where: { $0 >= 0x30 && $0 <= 0x39 }) { body.append(UInt8(ascii: "#")) } else { body += run }
            run.removeAll()
        }
        for b in response.body {
            let idByte = (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                || b == 0x2B || b == 0x2F || b == 0x3D || b == 0x2E || b == 0x5F || b == 0x2D
            if idByte { run.append(b) } else { endRun(); body.append(b) }
        }
        endRun()
        return "\(response.status) [\(names)] \(String(decoding: body, as: UTF8.self))"
    }

    public func makeConnection() -> ConnectionContext {
        defer { nextConnectionID += 1 }
        return ConnectionContext(id: nextConnectionID, isTLS: true, remoteAddress: "127.0.0.1:40000", control: nil)
    }

    /// An access token of this gateway for the fixture's service account, issued once per input
    /// straight into the gateway's token store, as `/token` issues one for `oauthGrant`
    /// (`Fixture.checkGrant` checks that it does).
    public func fcmAccessToken() -> String {
        if let accessToken { return accessToken }
        guard let gateway else { return "" }
        let token = gateway.accessTokens.issue(IssuedAccessToken(clientEmail: fixture.oauthClientEmail, projectID: fixture.oauthProjectID,
                                                                 scopes: [Fixture.fcmScope],
                                                                 expiresAt: fixture.time.now.addingTimeInterval(OAuthRoute.lifetime)))
        accessToken = token
        return token
    }

    /// Routes and answers one request the way `RequestDispatcher` does (404/405, handler, `.later`
    /// awaited, a throwing handler → 500). `.resetStream` is reported as status 0.
    public func respond(_ input: FuzzRequest, connection: ConnectionContext) -> ServerResponse {
        var input = input
        for index in input.headers.indices where input.headers[index].1.utf8.contains(UInt8(ascii: "@")) {
            let value = input.headers[index].1
            var substituted = Self.replacing(Self.apnsJWTMarker, in: value) { fixture.apnsJWT }
            substituted = Self.replacing(Self.fcmTokenMarker, in: substituted) { fcmAccessToken() }
            if Self.checksAgainstFresh {
                // Foundation's literal replacement, which this stands in for, must agree.
                var foundation = value
                if foundation.contains("@APNS_JWT@") { foundation = foundation.replacingOccurrences(of: "@APNS_JWT@", with: fixture.apnsJWT) }
                if foundation.contains("@FCM_TOKEN@") { foundation = foundation.replacingOccurrences(of: "@FCM_TOKEN@", with: fcmAccessToken()) }
                guard foundation == substituted else { fatalError("marker substitution differs from Foundation's: \(value.debugDescription)") }
            }
            input.headers[index].1 = substituted
        }
        let response = Self.respond(router, input, connection: connection)
        if recordsTranscript { transcript.append(Self.shape(response)) }
        return response
    }

    static let apnsJWTMarker = Array("@APNS_JWT@".utf8)
    static let fcmTokenMarker = Array("@FCM_TOKEN@".utf8)

    /// `value` with every occurrence of `marker` (ASCII), left to right and not overlapping,
    /// replaced by `replacement()` (called once, and only if `marker` occurs), as Foundation's
    /// `replacingOccurrences(of:with:)` replaces a literal string. On the UTF-8 bytes: Foundation's
    /// `contains` and `replacingOccurrences` (CFStringFind) were 4% of FuzzFCMOAuth, whose send
    /// mode carries `@FCM_TOKEN@` in every input. `FUZZ_CHECK_FRESH=1` compares the two on every
    /// value with an `@`.
    static func replacing(_ marker: [UInt8], in value: String, with replacement: () -> String) -> String {
        let bytes = Array(value.utf8)
        guard bytes.count >= marker.count else { return value }
        var out: [UInt8] = []
        var replacementBytes: [UInt8]?
        var start = 0
        var i = 0
        while i <= bytes.count - marker.count {
            if bytes[i] == marker[0], bytes[i..<(i + marker.count)].elementsEqual(marker) {
                if replacementBytes == nil { replacementBytes = Array(replacement().utf8) }
                out.append(contentsOf: bytes[start..<i])
                out.append(contentsOf: replacementBytes!)
                i += marker.count
                start = i
            } else {
                i += 1
            }
        }
        guard replacementBytes != nil else { return value }
        out.append(contentsOf: bytes[start...])
        return String(decoding: out, as: UTF8.self)
    }

    public static func respond(_ router: Router, _ input: FuzzRequest, connection: ConnectionContext) -> ServerResponse {
        var target = input.target
        var query: String?
        if let q = target.firstIndex(of: "?") {
            query = String(target[target.index(after: q)...])
            target = String(target[..<q])
        }
        var headers = HTTPHeaders()
        for (name, value) in input.headers { headers.add(name, value) }
        var request = ServerRequest(method: input.method, path: target, query: query, headers: headers, body: input.body,
                                    version: .http2, streamID: 1, connection: connection)
        switch router.match(method: request.method, path: request.path) {
        case .notFound: return .text(404, "no route\n")
        case .methodNotAllowed: return .text(405, "not allowed\n")
        case .found(let handler, let parameters):
            request.pathParameters = parameters
            let reply: HandlerReply
            do { reply = try handler(request) } catch { return .text(500, "internal server error\n") }
            switch reply {
            case .now(let response): return response
            case .resetStream: return ServerResponse(status: 0)
            case .later(let work): return Self.wait(for: work)
            case .callback(let start): return Self.wait(for: start)
            }
        }
    }

    /// Runs a `.later` handler's work. With `InlineGlobalExecutor` installed (every fuzz target
    /// that drives handlers installs it) the task runs to completion inside `Task.detached`, on
    /// this thread; the semaphore is then already signalled.
    private static func wait(for work: @escaping @Sendable () async -> ServerResponse) -> ServerResponse {
        let result = Mutex<ServerResponse?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            let response = await work()
            result.withLock { $0 = response }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }
}

extension InMemoryServer {
    /// Runs a `.callback` handler's work and waits for its answer (the collector, committing
    /// inside the handler with `maxPendingWrites = 1`, answers before `start` returns).
    static func wait(for start: @Sendable (CallbackResponder) -> Void) -> ServerResponse {
        let result = Mutex<ServerResponse?>(nil)
        let done = DispatchSemaphore(value: 0)
        start(CallbackResponder { response in
            result.withLock { $0 = response }
            done.signal()
        })
        done.wait()
        return result.withLock { $0! }
    }
}

/// The collector as `pushlab serve` mounts it (`MetricsCollector.register(on:)`), built on its
/// host's first collector request: most Google-host inputs never reach it, and its in-memory
/// SQLite store (schema included) is the largest part of an input's set-up. Each request goes
/// through the collector's own router and handlers. Writes are committed inside the handler
/// (`maxPendingWrites = 1`), so no writer timer outlives the input.
final class LazyCollector: Sendable {
    private let time: ManualTimeSource
    private let credentials: CollectorCredentials
    private let built = Mutex<(collector: MetricsCollector, router: Router)?>(nil)
    /// The in-memory store, kept across inputs with every row deleted by `reset()` (a new
    /// `MetricsCollector` per input reads its duplicate keys from the empty store, as from a new
    /// one): making the schema and preparing the insert statements for each input that reaches
    /// the collector was most of FuzzServerRequests' SQLite time (a fifth of the target). Made
    /// anew after `storeUses` inputs. The store counts what it writes towards a background
    /// checkpoint every 16 MiB (`MetricStore.checkpointAfterBytes`), which a store per input
    /// never reached: inputs of the usual few hundred bytes stay far below it in `storeUses`
    /// inputs, and large ones that reach it start a checkpoint on its own connection and thread,
    /// which for ":memory:" opens a second, empty database and changes no answer.
    private let kept = Mutex<(store: MetricStore, uses: Int)?>(nil)
    static let storeUses = 256

    init(time: ManualTimeSource, credentials: CollectorCredentials) {
        self.time = time
        self.credentials = credentials
    }

    /// The collector's routes on `router`, answered by the collector once it is built.
    func register(on router: inout Router) {
        for route in CIOMetricRoute.allCases {
            router.add("POST", route.path) { [self] request in try answer(request) }
        }
    }

    func flush() { built.withLock { $0?.collector }?.flush() }

    /// Drops the collector and deletes every row of its store; the next collector request
    /// builds a new collector on it.
    func reset() {
        let dropped = built.withLock { built -> Bool in
            defer { built = nil }
            return built != nil
        }
        guard dropped else { return }
        kept.withLock { kept in
            guard let (store, uses) = kept else { return }
            do {
                for table in try store.database.query("SELECT name FROM sqlite_master WHERE type = 'table'") {
                    guard let name = table.string(0) else { continue }
                    try store.database.execute("DELETE FROM \"\(name)\"")
                }
                kept = uses + 1 >= Self.storeUses ? nil : (store, uses + 1)
            } catch {
                kept = nil
            }
        }
    }

    private func answer(_ request: ServerRequest) throws -> HandlerReply {
        let router = try built.withLock { built throws -> Router in
            if let built { return built.router }
            var configuration = CollectorConfiguration(credentials: credentials)
            configuration.maxPendingWrites = 1
            let store = try kept.withLock { kept throws -> MetricStore in
                if let kept { return kept.store }
                let store = try MetricStore(path: ":memory:")
                kept = (store, 0)
                return store
            }
            let collector = try MetricsCollector(configuration: configuration, store: store, timeSource: time)
            built = (collector, collector.makeRouter())
            return built!.router
        }
        guard case .found(let handler, let parameters) = router.match(method: request.method, path: request.path) else {
            fatalError("the collector has no route for \(request.method) \(request.path), which it registered")
        }
        var request = request
        request.pathParameters = parameters
        return try handler(request)
    }
}
