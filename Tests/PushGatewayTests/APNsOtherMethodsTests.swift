import Foundation
import PushCore
import PushGateway
import PushHTTP
import TestSupport
import XCTest

/// Any method but POST on an APNs path, a made-up one included, is answered like APNs:
/// `405 {"reason":"MethodNotAllowed"}`, never the server's plain-text 405. Found by
/// Fuzz/FuzzServerRequests; its inputs are in Tests/Corpus/fuzz-regressions/FuzzServerRequests.
final class APNsOtherMethodsTests: XCTestCase {
    func testFuzzRegressionInputsGetAPNsJSONAnswers() async throws {
        let harness = try GatewayHarness()
        let directory = Fixtures.path("Tests/Corpus/fuzz-regressions/FuzzServerRequests")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        XCTAssertFalse(files.isEmpty)
        for file in files {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory + "/" + file)))
            guard bytes.first.map({ $0 % 3 == 0 }) == true else { continue }  // APNs-host inputs
            // FuzzRequest's text form: "METHOD target" on the first line.
            let line = String(decoding: bytes.dropFirst().prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            let response = try route(harness.gateway.apnsRouter, method: parts[0], path: parts.count > 1 ? parts[1] : "/")
            XCTAssertEqual(response.status, 405, file)
            let reason = try JSONDocument.parse(response.body).value(at: "/reason")
            XCTAssertEqual(reason, .string("MethodNotAllowed"), file)
        }
        await harness.stop()
    }

    func testMadeUpMethodOverTheRealTransport() async throws {
        let harness = try GatewayHarness()
        let url = harness.gateway.apnsAddresses!.cleartextURL! + "/3/device/" + GatewayHarness.devToken
        let curl = try ProcessRunner.run("/usr/bin/curl", ["-s", "--http2-prior-knowledge", "-X", "BREW", "-w", "\n%{http_code}", url])
        XCTAssertEqual(curl.stdout, #"{"reason":"MethodNotAllowed"}"# + "\n405")
        await harness.stop()
    }

    private func route(_ router: Router, method: String, path: String) throws -> ServerResponse {
        let connection = ConnectionContext(id: 1, isTLS: true, remoteAddress: "test", control: nil)
        guard case .found(let handler, let parameters) = router.match(method: method, path: path) else {
            XCTFail("\(method) \(path) was not routed to a handler")
            return ServerResponse(status: 0)
        }
        var request = ServerRequest(method: method, path: path, connection: connection)
        request.pathParameters = parameters
        guard case .now(let response) = try handler(request) else {
            XCTFail("\(method) \(path): expected an immediate answer")
            return ServerResponse(status: 0)
        }
        return response
    }
}
