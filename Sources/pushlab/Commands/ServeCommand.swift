import Foundation
import PushHTTP

/// `pushlab serve`: the gateway emulator's server. The transport issue mounts `GET /health`;
/// later issues add their routes in `makeRouter` (APNs, FCM, collector).
enum ServeCommand: Command {
    static let path = ["serve"]
    static let summary = "Run the push gateway emulator (APNs, FCM, OAuth, collector) on local ports."
    static let discussion = """
        Listens with TLS (HTTP/2 via ALPN, HTTP/1.1 fallback) on --port and in cleartext (h2c with \
        prior knowledge, or HTTP/1.1) on --h2c-port, prints one URL per listener, and runs until \
        SIGINT or SIGTERM, then lets in-flight requests finish and exits. GET /health answers \
        {"status":"ok"} on both.
        """
    static let options: [OptionSpec] = [
        .value("--host", name: "ADDR", help: "Address to listen on.", default: "127.0.0.1"),
        .value("--port", name: "PORT", help: "TLS (h2 + HTTP/1.1) port; 0 picks a free one.", default: "8443"),
        .value("--h2c-port", name: "PORT", help: "Cleartext port (h2c prior knowledge + HTTP/1.1); 0 picks a free one.", default: "8080"),
        .value("--cert", name: "PEM", help: "TLS certificate chain.", default: "certs/server.pem"),
        .value("--key", name: "PEM", help: "TLS private key.", default: "certs/server.key"),
        .flag("--bench", help: "Also answer POST /bench with an empty 200 (benchmarks/transport-server.sh)."),
    ]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let server = try makeServer(router: try makeRouter(args), args: args)
        do {
            try server.start()
        } catch {
            throw UsageError("\(error)")
        }
        if let bound = server.boundAddresses {
            if let url = bound.tlsURL { emit("\(url) (h2, http/1.1)") }
            if let url = bound.cleartextURL { emit("\(url) (h2c, http/1.1)") }
        }
        let signal = await waitForTerminationSignal()
        printError("pushlab serve: signal \(signal), finishing in-flight requests")
        await server.stop()
        return ExitStatus.success
    }

    /// The routes `pushlab serve` mounts. Later issues add theirs here.
    static func makeRouter(_ args: ParsedArguments) throws -> Router {
        var router = Router()
        router.add("GET", "/health") { _ in .now(.json(200, #"{"status":"ok"}"#)) }
        if args.flag("--bench") {
            router.add("POST", "/bench") { _ in .now(ServerResponse(status: 200)) }
        }
        return router
    }

    /// Builds (does not start) the server for `router` from the listener flags.
    static func makeServer(router: Router, args: ParsedArguments) throws -> HTTPServer {
        let tlsPort = try args.int("--port", range: 0...65535) ?? 8443
        let cleartextPort = try args.int("--h2c-port", range: 0...65535) ?? 8080
        let cert = args.value("--cert") ?? "certs/server.pem"
        let key = args.value("--key") ?? "certs/server.key"
        for (flag, file) in [("--cert", cert), ("--key", key)] where !FileManager.default.isReadableFile(atPath: file) {
            throw UsageError("\(flag) \(file): cannot read the file",
                             fix: "run from the repository root or pass \(flag) with a PEM file (certs/README.md)")
        }
        let configuration = HTTPServerConfiguration(host: args.value("--host") ?? "127.0.0.1", tlsPort: tlsPort,
                                                    cleartextPort: cleartextPort, certificateFile: cert,
                                                    privateKeyFile: key)
        return HTTPServer(configuration: configuration, router: router)
    }
}
