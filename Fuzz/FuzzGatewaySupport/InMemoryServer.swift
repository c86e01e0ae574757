import Foundation
import PushAuth
import PushCore
import PushGateway
import PushHTTP
import PushMetrics
import Synchronization

/// The gateway (APNs host, Google host with the collector mounted, as `pushlab serve` wires it)
/// or a standalone collector, built but never started: requests are routed with `Router.match`
/// and answered by the handlers directly, with no sockets.
///
/// Each input gets a fresh one (`InMemoryServer(fixture:host:)`: in-memory records, device
/// registry, access tokens and an in-memory SQLite collector store), so an input's outcome does
/// not depend on the inputs before it (a crash replays from its own file) and nothing one input
/// stores outlives it: libFuzzer's malloc/free counts balance, so its leak check only runs when
/// something really leaks. The expensive parts — keys, the signed provider token and OAuth
/// assertion — are built once (`Fixture`).
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
        /// An RS256 OAuth assertion of the development service account; each input that uses
        /// `@FCM_TOKEN@` exchanges it at its own gateway's `/token` for an access token.
        public let oauthGrant: [UInt8]

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
                                                           scope: "https://www.googleapis.com/auth/firebase.messaging",
                                                           iat: now, exp: now + 3600),
                                         key: account.privateKey)
            oauthGrant = Array("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)".utf8)
        }
    }

    public let fixture: Fixture
    public let host: Host
    public let router: Router
    /// The gateway (APNs and Google hosts); nil for the standalone collector.
    public let gateway: Gateway?
    private let collector: MetricsCollector?
    private var accessToken: String?
    private var nextConnectionID: UInt64 = 1

    /// `mountsCollector: false` leaves the collector off the Google host (FuzzFCMOAuth does not
    /// reach it, and its SQLite store is most of a gateway's set-up).
    public init(fixture: Fixture, host: Host, mountsCollector: Bool = true) throws {
        self.fixture = fixture
        self.host = host
        switch host {
        case .apns, .google:
            // The collector is mounted on the Google host only, so an APNs input needs none.
            var collectorConfig = CollectorConfiguration(credentials: CollectorCredentials(cdpAPIKeys: ["pushlab-demo-cdp-key"]))
            collectorConfig.maxPendingWrites = 1
            let served = host == .apns || !mountsCollector ? nil
                : try MetricsCollector(configuration: collectorConfig, store: try MetricStore(path: ":memory:"), timeSource: fixture.time)
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
            var collectorConfig = CollectorConfiguration()
            collectorConfig.maxPendingWrites = 1
            let standalone = try MetricsCollector(configuration: collectorConfig, store: try MetricStore(path: ":memory:"),
                                                  timeSource: fixture.time)
            gateway = nil
            collector = standalone
            router = standalone.makeRouter()
        }
    }

    /// Waits for the collector's writer queue (it commits each request at once here,
    /// `maxPendingWrites = 1`, on its own queue), so nothing of the input runs after it.
    public func finish() { collector?.flush() }

    public func makeConnection() -> ConnectionContext {
        defer { nextConnectionID += 1 }
        return ConnectionContext(id: nextConnectionID, isTLS: true, remoteAddress: "127.0.0.1:40000", control: nil)
    }

    /// The access token this gateway issued for the fixture's grant (asked for once per input).
    public func fcmAccessToken() -> String {
        if let accessToken { return accessToken }
        guard let gateway else { return "" }
        let reply = Self.respond(gateway.googleRouter, FuzzRequest(method: "POST", target: "/token", headers: [], body: fixture.oauthGrant),
                                 connection: makeConnection())
        guard reply.status == 200, let document = try? JSONDocument.parse(reply.body),
              case .string(let token)? = document.value(at: "/access_token")
        else { fatalError("the emulator refused the fuzz harness's own OAuth grant: \(reply.status) \(String(decoding: reply.body, as: UTF8.self))") }
        accessToken = token
        return token
    }

    /// Routes and answers one request the way `RequestDispatcher` does (404/405, handler, `.later`
    /// awaited, a throwing handler → 500). `.resetStream` is reported as status 0.
    public func respond(_ input: FuzzRequest, connection: ConnectionContext) -> ServerResponse {
        var input = input
        input.headers = input.headers.map { name, value in
            var value = value
            if value.contains("@APNS_JWT@") { value = value.replacingOccurrences(of: "@APNS_JWT@", with: fixture.apnsJWT) }
            if value.contains("@FCM_TOKEN@") { value = value.replacingOccurrences(of: "@FCM_TOKEN@", with: fcmAccessToken()) }
            return (name, value)
        }
        return Self.respond(router, input, connection: connection)
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
