import Foundation
import PushAuth
import PushCore
import PushGateway
import PushHTTP
import PushMetrics
import Synchronization

/// The gateway (APNs host, Google host with the collector mounted, as `pushlab serve` wires it)
/// and a standalone collector, built but never started: requests are routed with `Router.match`
/// and answered by the handlers directly, with no sockets.
final class InMemoryServer: Sendable {
    enum Host: CaseIterable { case apns, google, collector }

    let gateway: Gateway
    let collectorRouter: Router
    /// A provider token and an OAuth access token valid at `time`, substituted for `@APNS_JWT@`
    /// and `@FCM_TOKEN@` in fuzz inputs so the fuzzer reaches past authentication.
    let apnsJWT: String
    let fcmAccessToken: String
    private let nextConnectionID = Atomic<UInt64>(1)

    init(certs: String) throws {
        let time = ManualTimeSource()
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("pushlab-fuzz-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let keys = try GatewayKeys.developmentDefaults(certsDirectory: certs)
        let served = try MetricsCollector(configuration: CollectorConfiguration(credentials: CollectorCredentials(cdpAPIKeys: ["pushlab-demo-cdp-key"])),
                                          store: try MetricStore(path: work.appendingPathComponent("served.sqlite").path), timeSource: time)
        var config = GatewayConfiguration(certificateFile: certs + "/server.pem", privateKeyFile: certs + "/server.key")
        config.apnsPort = 0
        config.fcmPort = 0
        let gateway = try Gateway(configuration: config, keys: keys, devices: DeviceRegistry(), time: time) { router in
            router.add("GET", "/health") { _ in .now(.json(200, #"{"status":"ok"}"#)) }
            served.register(on: &router)
        }
        self.gateway = gateway
        let standalone = try MetricsCollector(configuration: CollectorConfiguration(),
                                              store: try MetricStore(path: work.appendingPathComponent("collector.sqlite").path),
                                              timeSource: time)
        collectorRouter = standalone.makeRouter()

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
        let grant = Array("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)".utf8)
        let reply = Self.respond(gateway.googleRouter, FuzzRequest(method: "POST", target: "/token", headers: [], body: grant),
                                 connection: ConnectionContext(id: 0, isTLS: true, remoteAddress: "127.0.0.1:40000", control: nil))
        guard reply.status == 200, let document = try? JSONDocument.parse(reply.body),
              case .string(let token)? = document.value(at: "/access_token")
        else { fatalError("the emulator refused the fuzz harness's own OAuth grant: \(reply.status) \(String(decoding: reply.body, as: UTF8.self))") }
        fcmAccessToken = token
    }

    func makeConnection() -> ConnectionContext {
        ConnectionContext(id: nextConnectionID.add(1, ordering: .relaxed).oldValue, isTLS: true,
                          remoteAddress: "127.0.0.1:40000", control: nil)
    }

    /// Routes and answers one request the way `RequestDispatcher` does (404/405, handler, `.later`
    /// awaited, a throwing handler → 500). `.resetStream` is reported as status 0.
    func respond(_ host: Host, _ input: FuzzRequest, connection: ConnectionContext) -> ServerResponse {
        var input = input
        input.headers = input.headers.map { name, value in
            (name, value.replacingOccurrences(of: "@APNS_JWT@", with: apnsJWT).replacingOccurrences(of: "@FCM_TOKEN@", with: fcmAccessToken))
        }
        switch host {
        case .apns: return Self.respond(gateway.apnsRouter, input, connection: connection)
        case .google: return Self.respond(gateway.googleRouter, input, connection: connection)
        case .collector: return Self.respond(collectorRouter, input, connection: connection)
        }
    }

    static func respond(_ router: Router, _ input: FuzzRequest, connection: ConnectionContext) -> ServerResponse {
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
