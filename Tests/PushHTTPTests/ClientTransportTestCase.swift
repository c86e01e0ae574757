import Foundation
import PushHTTP
import XCTest

/// The base of every client behaviour suite: a test makes its client with `makeClient`, so
/// each suite runs against libcurl's `HTTPClient` (this class) and, through a subclass that
/// overrides `transport`, against `NGHTTP2Client` — the same tests, not copies. The factory
/// decides as in production (HTTP/1.1 mode always gets libcurl); the environment is empty so a
/// proxy variable of the machine cannot change the choice.
class ClientTransportTestCase: XCTestCase {
    class var transport: HTTPTransportKind { .curl }

    func makeClient(_ configuration: HTTPClientConfiguration) throws -> any LoopHTTPTransport {
        let client = try HTTPTransports.make(configuration: configuration, preferring: Self.transport, environment: [:])
        if Self.transport == .nghttp2 && configuration.protocolMode != .http1 {
            XCTAssertTrue(client is NGHTTP2Client, "the factory gave \(type(of: client)) for \(configuration.protocolMode)")
        } else {
            XCTAssertTrue(client is HTTPClient, "the factory gave \(type(of: client)) for \(configuration.protocolMode)")
        }
        return client
    }
}
