import Foundation
import PushAuth
import PushGateway
import PushHTTP
@testable import PushRedis
import TestSupport
import XCTest

/// One FCM OAuth access token per service account across nodes: three nodes, each with its own
/// `OAuthTokenSource` and HTTP client, against the gateway emulator's real `/token` route and a
/// real redis-server.
final class SharedOAuthTokenTests: XCTestCase {
    private var server: RedisServer!
    private var gateway: Gateway!
    private var clients: [HTTPClient] = []

    override func setUp() async throws {
        server = try RedisServer()
        gateway = try Gateway(configuration: GatewayConfiguration(certificateFile: Fixtures.serverCert, privateKeyFile: Fixtures.serverKey),
                              keys: try GatewayKeys.developmentDefaults(certsDirectory: Fixtures.path("certs")), devices: DeviceRegistry())
        try gateway.start()
    }

    override func tearDown() async throws {
        for client in clients { await client.shutdown() }
        await gateway?.stop()
        server?.stop()
    }

    private func node() throws -> (SharedOAuthToken, OAuthTokenSource) {
        let file = try ServiceAccount.load(path: Fixtures.fcmServiceAccount)
        let account = ServiceAccount(projectID: file.projectID, clientEmail: file.clientEmail, privateKeyID: file.privateKeyID,
                                     privateKey: file.privateKey, tokenURI: gateway.tokenURL ?? "", source: file.source)
        let http = try HTTPClient(configuration: HTTPClientConfiguration(caFile: Fixtures.caFile))
        clients.append(http)
        let source = OAuthTokenSource(account: account, transport: http)
        // A long lock wait: on a loaded machine one exchange (RS256 signing and the emulator's
        // verification) can outlast the default 5 s, and a waiting node then makes its own
        // exchange by design; these tests are about sharing, not about that timeout.
        return (SharedOAuthToken(source: source, client: RedisClient(endpoint: try RedisEndpoint(url: server.url)), lockWait: .seconds(60)), source)
    }

    func testThreeNodesMakeOneExchangeAndShareTheRenewedToken() async throws {
        let nodes = try (0..<3).map { _ in try node() }
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for (shared, _) in nodes { group.addTask { try await shared.bearerToken() } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        XCTAssertEqual(tokens.count, 1, "every node uses the same access token")
        var exchanges = 0
        for (_, source) in nodes { exchanges += await source.exchangeCount }
        XCTAssertEqual(exchanges, 1, "one token exchange for the cluster")
        let stored = try server.cli(["GET", "pushlab:oauth:\(nodes[0].1.account.clientEmail)"])
        XCTAssertTrue(stored.hasSuffix(" " + tokens.first!), "the token in Redis is the one in use")

        // FCM answered 401 for it on node 0: node 0 renews, and the others adopt the new token.
        let renewed = await nodes[0].0.renew(afterRejecting: tokens.first!)
        XCTAssertTrue(renewed)
        let fresh = try await nodes[0].0.bearerToken()
        XCTAssertNotEqual(fresh, tokens.first)
        // Node 1 still holds the old one locally until it is rejected there too.
        _ = await nodes[1].0.renew(afterRejecting: tokens.first!)
        let adopted = try await nodes[1].0.bearerToken()
        XCTAssertEqual(adopted, fresh, "the second node adopts the token the first one minted")
        exchanges = 0
        for (_, source) in nodes { exchanges += await source.exchangeCount }
        XCTAssertEqual(exchanges, 2)
    }

    /// A Redis answering with an error (`-LOADING` after a restart; here `-WRONGTYPE`, the key
    /// holding a list) falls back as an unreachable one does. Red with only connection failures
    /// falling back.
    func testAnErrorAnswerFromRedisFallsBackToTheNodesOwnExchange() async throws {
        try await assertOwnExchange { shared in _ = try self.server.cli(["RPUSH", shared.redisKey, "not a token"]) }
    }

    func testRedisDownFallsBackToTheNodesOwnExchange() async throws {
        try await assertOwnExchange { _ in self.server.stop() }
    }

    /// After `fault`, the node's token comes from one exchange of its own, counted as a fallback.
    private func assertOwnExchange(after fault: (SharedOAuthToken) throws -> Void) async throws {
        let (shared, source) = try node()
        try fault(shared)
        let token = try await shared.bearerToken()
        XCTAssertFalse(token.isEmpty)
        let fallbacks = await shared.localFallbacks
        XCTAssertEqual(fallbacks, 1)
        let exchanges = await source.exchangeCount
        XCTAssertEqual(exchanges, 1)
    }
}

/// The mint lock's race (issue 43: "sometimes two OAuth token exchanges per cluster"): node B
/// reads no token, node A then mints, stores and releases the lock, and only then does B try the
/// lock — and gets it. B must read again under the lock and adopt A's token, not exchange again.
final class SharedOAuthTokenLockRaceTests: XCTestCase {
    func testNodeThatGetsTheLockAfterAnotherMintedAdoptsItsToken() async throws {
        let server = try RedisServer()
        let gateway = try Gateway(configuration: GatewayConfiguration(certificateFile: Fixtures.serverCert, privateKeyFile: Fixtures.serverKey),
                                  keys: try GatewayKeys.developmentDefaults(certsDirectory: Fixtures.path("certs")), devices: DeviceRegistry())
        try gateway.start()
        let file = try ServiceAccount.load(path: Fixtures.fcmServiceAccount)
        let account = ServiceAccount(projectID: file.projectID, clientEmail: file.clientEmail, privateKeyID: file.privateKeyID,
                                     privateKey: file.privateKey, tokenURI: gateway.tokenURL ?? "", source: file.source)
        var http: [HTTPClient] = []
        func node() throws -> (SharedOAuthToken, OAuthTokenSource) {
            let client = try HTTPClient(configuration: HTTPClientConfiguration(caFile: Fixtures.caFile))
            http.append(client)
            let source = OAuthTokenSource(account: account, transport: client)
            return (SharedOAuthToken(source: source, client: RedisClient(endpoint: try RedisEndpoint(url: server.url)), lockWait: .seconds(60)), source)
        }
        let (a, sourceA) = try node()
        let (b, sourceB) = try node()
        // A's whole mint falls between B's empty read and B's lock.
        await b.setBeforeTakingLock { _ = try? await a.bearerToken() }
        let tokenB = try await b.bearerToken()
        let tokenA = try await a.bearerToken()
        let exchangesA = await sourceA.exchangeCount, exchangesB = await sourceB.exchangeCount
        XCTAssertEqual(exchangesA, 1, "node A minted")
        XCTAssertEqual(exchangesB, 0, "node B adopted A's token instead of exchanging again")
        XCTAssertEqual(tokenB, tokenA, "one token for the cluster")
        XCTAssertEqual(try server.cli(["EXISTS", "pushlab:oauth-lock:\(account.clientEmail)"]), "0", "the lock is released")
        for client in http { await client.shutdown() }
        await gateway.stop()
        server.stop()
    }
}
