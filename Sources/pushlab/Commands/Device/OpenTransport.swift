import Foundation
import PushHTTP

/// The HTTP client `pushlab open` sends the opened metric with (TLS h2 for https, HTTP/1.1 for
/// http, as an iPhone's URLSession does).
func makeTransport(caFile: String?) throws -> (any HTTPTransport)? {
    let caFile = try SendSupport.caFile(caFile)
    do {
        return try HTTPClient(configuration: HTTPClientConfiguration(caFile: caFile, connectTimeout: .seconds(5),
                                                                     requestTimeout: .seconds(30)))
    } catch {
        throw UsageError("cannot start the HTTP client: \(error)")
    }
}

/// Lets in-flight requests finish and closes the client's connections.
func shutdown(_ transport: (any HTTPTransport)?) async {
    if let client = transport as? HTTPClient { await client.shutdown() }
}
