import Foundation
import PushHTTP

/// The HTTP transport `pushlab open` sends the opened metric with.
func makeTransport(caFile: String?) throws -> (any HTTPTransport)? {
    if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
        throw UsageError("--ca-file \(caFile): cannot read the file", fix: "pass a PEM CA certificate such as certs/ca.pem")
    }
    throw UsageError("sending metrics needs the HTTP client, which is not built yet", fix: "use --no-metrics to see the request")
}

func shutdown(_ transport: (any HTTPTransport)?) async {}
