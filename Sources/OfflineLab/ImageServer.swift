import Foundation
import PushCore
import PushHTTP

/// A local HTTPS server for rich-push images: `GET /images/{name}` serves a file from one
/// directory, optionally after a latency drawn per request (the simulator's image-latency
/// model). Loopback only.
public final class ImageServer: Sendable {
    private let server: HTTPServer

    /// `latency` returns how long to hold a request back, given its query string (the simulator
    /// names the push in it: `?push=17`); nil: answer at once.
    public init(directory: String, certificateFile: String, privateKeyFile: String,
                latency: (@Sendable (_ query: String?) -> Duration?)? = nil) {
        var router = Router()
        ImageServer.register(on: &router, directory: directory, latency: latency)
        server = HTTPServer(configuration: HTTPServerConfiguration(tlsPort: 0, cleartextPort: nil,
                                                                   certificateFile: certificateFile, privateKeyFile: privateKeyFile),
                            router: router)
    }

    /// Adds `GET /images/{name}` (files of `directory`) to `router`; `pushlab serve --images`
    /// mounts the same route on the emulator's Google host.
    public static func register(on router: inout Router, directory: String,
                                latency: (@Sendable (_ query: String?) -> Duration?)? = nil) {
        router.add("GET", "/images/{name}") { request in
            let name = request.pathParameters["name"] ?? ""
            // One path segment only: no `..`, no hidden files.
            guard !name.hasPrefix("."), !name.contains("/"),
                  let data = FileManager.default.contents(atPath: directory + "/" + name) else {
                return .now(.text(404, "no image named \(name)\n"))
            }
            let response = ServerResponse(status: 200, headers: ["content-type": ImageServer.contentType(name)], body: Array(data))
            guard let wait = latency?(request.query), wait > .zero else { return .now(response) }
            return .later {
                try? await Task.sleep(for: wait)
                return response
            }
        }
    }

    public func start() throws { try server.start() }
    public func stop() async { await server.stop() }

    /// `https://127.0.0.1:<port>/images/<name>`.
    public func url(for name: String) -> String { (server.boundAddresses?.tlsURL ?? "https://127.0.0.1:0") + "/images/" + name }

    static func contentType(_ name: String) -> String {
        switch (name as NSString).pathExtension.lowercased() {
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "gif": return "image/gif"
        default: return "application/octet-stream"
        }
    }
}
