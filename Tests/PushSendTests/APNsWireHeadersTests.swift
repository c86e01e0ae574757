import XCTest
import Foundation
import PushAuth
import PushCore
@testable import PushHTTP
import Synchronization
import TestSupport
@testable import PushSend

/// docs/specs/apns.md "Request", read off the wire: a bulk send (pushes sent from the HTTP
/// client's loop, many per turn, on pooled handles whose header lines are rewritten in place)
/// puts on the wire exactly the header fields, in the same order, that one push sent alone does —
/// with its own device token in the path and its own apns-id, the one its result reports.
final class APNsWireHeadersTests: XCTestCase {
    func testEveryPushOfABulkSendCarriesTheHeadersOfAPushSentAlone() async throws {
        let seen = Mutex<[String: (path: String, headers: [HTTPHeader], body: [UInt8])]>([:])
        let server = try LocalPushServer(apns: { request in
            seen.withLock { $0[request.headers["apns-id"] ?? ""] = (request.path, request.headers.fields, request.body) }
            return nil
        })
        let http = try HTTPClient(configuration: HTTPClientConfiguration(caFile: Fixtures.caFile))
        let key = try APNsAuthKey.load(path: Fixtures.apnsKey, teamID: Fixtures.apnsTeamID)
        let sender = APNsClient(endpoint: try .custom(server.url), transport: http, credential: ProviderTokenCache(key: key),
                                retry: .none)
        let payload = Array(#"{"aps":{"alert":"wire"}}"#.utf8)
        let push = try PreparedAPNsPush(payload: payload, options: APNsPushOptions(topic: "io.pushlab.demo", expiration: 0))

        let alone = await sender.send(push, to: TestTokens.apns(0))
        XCTAssertTrue(alone.isAccepted)
        let reference = try XCTUnwrap(seen.withLock { $0[alone.apnsID] }).headers
        XCTAssertEqual(reference.map { $0.name.lowercased() }.filter { $0 == "authorization" || $0.hasPrefix("apns-") || $0 == "content-type" },
                       ["authorization", "apns-push-type", "apns-topic", "apns-priority", "apns-expiration", "apns-id", "content-type"])

        let count = 500
        let ids = Mutex<[Int: String]>([:])
        let summary = try await BulkSender(concurrency: 200, executors: [http.executor]).run(
            tokens: TokenLineReader(text: (1...count).map { TestTokens.apns($0) + "\n" }.joined()), sinks: []) { token, index in
                let result = await sender.send(push, to: token, index: index)
                ids.withLock { $0[Int(index) + 1] = result.apnsID }
                return result.report
            }
        XCTAssertEqual(summary.accepted, count, "\(summary.reasons)")
        XCTAssertGreaterThan(http.corkedTurns, 0, "the pushes must have gone out in corked batches")
        await http.shutdown()
        await server.stop()

        let byIndex = ids.withLock { $0 }
        XCTAssertEqual(Set(byIndex.values).count, count, "one apns-id per push")
        for i in 1...count {
            let id = try XCTUnwrap(byIndex[i])
            guard let request = seen.withLock({ $0[id] }) else {
                XCTFail("push \(i) (apns-id \(id)) never reached the server")
                continue
            }
            XCTAssertEqual(request.path, "/3/device/" + TestTokens.apns(i), "push \(i)")
            XCTAssertEqual(request.body, payload, "push \(i)")
            let expected = reference.map { $0.name.lowercased() == "apns-id" ? HTTPHeader($0.name, id) : $0 }
            XCTAssertEqual(request.headers, expected, "push \(i)")
        }
    }
}
