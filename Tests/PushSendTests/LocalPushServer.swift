import Foundation
import PushAuth
import PushCore
import PushHTTP
import Synchronization
import TestSupport

/// An in-process HTTP/2 + TLS server (PushHTTP's `HTTPServer`, dev certificate) whose
/// handlers answer like APNs and FCM, for the sender tests. It checks credentials on its own:
/// APNs provider JWTs against `certs/AuthKey_PLDEVKEY01.pub.pem`, FCM OAuth assertions against
/// `certs/fcm-service-account.pub.pem`, and counts every accepted apns-id / message.
final class LocalPushServer: Sendable {
    /// What a test wants answered instead of the default 200; nil lets the request through.
    typealias Script = @Sendable (ServerRequest) -> HandlerReply?

    struct Counts: Sendable {
        var requests = 0
        /// Accepted (answered 200) per apns-id or FCM target.
        var accepted: [String: Int] = [:]
        var jwts: Set<String> = []
        var fcmBodies: [String] = []
        var tokenExchanges = 0
        var goAways = 0
    }

    let server: HTTPServer
    private let counts: CountsBox
    let port: Int

    var url: String { "https://localhost:\(port)" }
    var snapshot: Counts { counts.withLock { $0 } }

    /// Shared between the handlers (event-loop thread) and the test.
    final class CountsBox: Sendable {
        private let mutex = Mutex(Counts())
        func withLock<R>(_ body: (inout Counts) -> R) -> R { mutex.withLock { body(&$0) } }
    }

    /// - Parameters:
    ///   - apns: overrides the APNs answer (after the credential check).
    ///   - fcm: overrides the FCM answer (after the access-token check).
    ///   - goAwayEvery: send GOAWAY on a connection after it has carried this many pushes (APNs or FCM).
    ///   - maxConcurrentStreams: the SETTINGS value advertised.
    init(apns: Script? = nil, fcm: Script? = nil, goAwayEvery: Int? = nil, maxConcurrentStreams: UInt32 = 500) throws {
        let apnsKey = try PublicKey(contentsOfFile: Fixtures.apnsPublicKey)
        let fcmKey = try PublicKey(contentsOfFile: Fixtures.fcmPublicKey)
        let counts = CountsBox()
        var router = Router()

        // GOAWAY once a connection has carried `goAwayEvery` pushes (APNs or FCM).
        let goAwayWhenDue: @Sendable (ServerRequest) -> Void = { request in
            guard let goAwayEvery else { return }
            let n = request.connection.storage.update("pushes", default: 0) { (n: inout Int) -> Int in n += 1; return n }
            if n == goAwayEvery {
                counts.withLock { $0.goAways += 1 }
                request.connection.goAway(errorCode: .noError, debugData: Array(#"{"reason":"Shutdown"}"#.utf8))
            }
        }

        router.add("POST", "/3/device/{token}") { request in
            counts.withLock { $0.requests += 1 }
            goAwayWhenDue(request)
            if let rejection = LocalPushServer.checkProviderToken(request, key: apnsKey, counts: counts) {
                return .now(rejection)
            }
            if let reply = apns?(request) { return reply }
            let id = request.headers["apns-id"] ?? UUID().uuidString.lowercased()
            counts.withLock { $0.accepted[id, default: 0] += 1 }
            return .now(ServerResponse(status: 200, headers: ["apns-id": id]))
        }

        router.add("POST", "/token") { request in
            let form = String(decoding: request.body, as: UTF8.self)
            guard let assertion = form.split(separator: "&").first(where: { $0.hasPrefix("assertion=") })?.dropFirst(10),
                  (try? JWT.verify(assertion, with: fcmKey, algorithm: .rs256)) != nil else {
                return .now(.json(400, #"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#))
            }
            let n = counts.withLock { $0.tokenExchanges += 1; return $0.tokenExchanges }
            return .now(.json(200, #"{"access_token":"at-\#(n)","expires_in":3599,"token_type":"Bearer"}"#))
        }

        router.add("POST", "/v1/projects/{project}/messages:send") { request in
            counts.withLock { $0.requests += 1 }
            goAwayWhenDue(request)
            guard let auth = request.headers["authorization"], auth.hasPrefix("Bearer at-") else {
                return .now(ServerResponse(status: 401, headers: ["content-type": "application/json"],
                                           body: FCMError(httpStatus: 401, status: "UNAUTHENTICATED", message: "Request had invalid authentication credentials.").json))
            }
            if let reply = fcm?(request) { return reply }
            let body = String(decoding: request.body, as: UTF8.self)
            guard let doc = try? JSONDocument.parse(request.body), let message = doc.root["message"]?.objectValue else {
                return .now(ServerResponse(status: 400, body: FCMError(.invalidArgument, message: "no message").json))
            }
            let target = message["token"]?.stringValue ?? message["topic"]?.stringValue ?? message["condition"]?.stringValue ?? ""
            let n = counts.withLock { c -> Int in
                c.accepted[target, default: 0] += 1
                if c.fcmBodies.count < 16 { c.fcmBodies.append(body) }
                return c.accepted.count
            }
            let project = request.pathParameters["project"] ?? "?"
            return .now(.json(200, #"{"name":"projects/\#(project)/messages/0:\#(n)"}"#))
        }

        let configuration = HTTPServerConfiguration(tlsPort: 0, cleartextPort: nil, certificateFile: Fixtures.serverCert,
                                                    privateKeyFile: Fixtures.serverKey,
                                                    settings: HTTP2Settings(maxConcurrentStreams: maxConcurrentStreams),
                                                    shutdownGracePeriod: .seconds(2))
        server = HTTPServer(configuration: configuration, router: router)
        try server.start()
        port = server.tlsPort!
        self.counts = counts
    }

    func stop() async { await server.stop() }

    /// docs/specs/apns.md "Provider token": bearer JWT, ES256, kid = key id, iss = team id, signature by the key.
    static func checkProviderToken(_ request: ServerRequest, key: PublicKey, counts: CountsBox) -> ServerResponse? {
        guard let auth = request.headers["authorization"], auth.hasPrefix("bearer ") else {
            return ServerResponse(status: 403, body: APNsErrorBody(reason: .missingProviderToken).json)
        }
        let jwt = String(auth.dropFirst(7))
        if counts.withLock({ $0.jwts.contains(jwt) }) { return nil }
        guard let parsed = try? JWT.verify(jwt, with: key, algorithm: .es256),
              parsed.header.kid == Fixtures.apnsKeyID, parsed.claims.iss == Fixtures.apnsTeamID, parsed.claims.iat != nil else {
            return ServerResponse(status: 403, body: APNsErrorBody(reason: .invalidProviderToken).json)
        }
        counts.withLock { _ = $0.jwts.insert(jwt) }
        return nil
    }

    /// A copy of the dev service account whose token_uri points at this server.
    func serviceAccountFile(in dir: URL) throws -> String {
        try Fixtures.fcmServiceAccount(tokenURI: url + "/token", in: dir)
    }
}
