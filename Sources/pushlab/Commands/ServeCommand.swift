import Foundation
import PushHTTP

/// `pushlab serve`: the gateway emulator. The transport issue starts it with `/health` only;
/// later issues add the APNs, FCM and collector routes.
enum ServeCommand: Command {
    static let path = ["serve"]
    static let summary = "Run the push gateway emulator (APNs, FCM, OAuth, collector) on local ports."
    static let options: [OptionSpec] = [
        .value("--host", name: "ADDR", help: "Address to listen on.", default: "127.0.0.1"),
        .value("--port", name: "PORT", help: "TLS (h2 + HTTP/1.1) port; 0 picks a free one.", default: "8443"),
        .value("--h2c-port", name: "PORT", help: "Cleartext port (h2c prior knowledge + HTTP/1.1); 0 picks a free one.", default: "8080"),
    ]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        throw UsageError("'pushlab serve' is not built yet (transport issue in progress)")
    }
}
