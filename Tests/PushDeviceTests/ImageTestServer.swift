import Foundation
import PushHTTP
import TestSupport

/// An in-process HTTPS server (PushHTTP's HTTPServer, TLS with certs/) serving images with
/// controlled latency, size, type and status, and capturing metric requests as they arrived.
final class ImageTestServer: @unchecked Sendable {
    let server: HTTPServer
    // Protected by `lock`.
    private var captured: [ServerRequest] = []
    private var cleartextHits = 0
    private let lock = NSLock()

    static let png = TestImages.png(width: 1200, height: 600, padTo: 4096)
    static let largePNG = TestImages.png(width: 4096, height: 2048, padTo: 64 * 1024)
    static let onePNGMegabyte = TestImages.png(width: 1024, height: 512, padTo: 1 << 20)

    init(stall: Duration = .seconds(3), metricStatus: Int = 200) throws {
        var router = Router()
        let box = Box()
        self.box = box
        func image(_ body: [UInt8], _ type: String = "image/png", status: Int = 200) -> RouteHandler {
            { _ in .now(ServerResponse(status: status, headers: ["content-type": type], body: body)) }
        }
        router.add("GET", "/banner.png", { req in
            if !req.connection.isTLS { box.owner?.countCleartextHit() }
            return .now(ServerResponse(status: 200, headers: ["content-type": "image/png"], body: ImageTestServer.png))
        })
        router.add("GET", "/1mb.png", image(ImageTestServer.onePNGMegabyte))
        router.add("GET", "/huge-dimensions.png", image(ImageTestServer.largePNG))
        router.add("GET", "/photo.jpg", image(ImageTestServer.png))  // PNG bytes named .jpg
        router.add("GET", "/real.jpg", image(TestImages.jpeg(), "image/jpeg"))
        router.add("GET", "/big.png", image([UInt8](repeating: 0x89, count: 11 * 1024 * 1024)))
        router.add("GET", "/empty.png", image([]))
        router.add("GET", "/missing.png", image(Array("<html>not found</html>".utf8), "text/html", status: 404))
        router.add("GET", "/stall.png", { _ in .later { try? await Task.sleep(for: stall); return ServerResponse(status: 200, body: ImageTestServer.png) } })
        router.add("GET", "/redirect-https", { _ in .now(ServerResponse(status: 302, headers: ["location": "/banner.png"])) })
        router.add("GET", "/redirect-http", { _ in
            .now(ServerResponse(status: 302, headers: ["location": "http://127.0.0.1:\(box.cleartextPort)/banner.png"]))
        })
        router.add("GET", "/redirect-loop", { _ in .now(ServerResponse(status: 302, headers: ["location": "/redirect-loop"])) })
        for route in ["/v1/track", "/v1/b", "/push/events"] {
            router.add("POST", route, { req in
                box.owner?.record(req)
                return .now(ServerResponse.json(metricStatus, "{}"))
            })
        }
        server = HTTPServer(configuration: HTTPServerConfiguration(
            tlsPort: 0, cleartextPort: 0, certificateFile: Fixtures.serverCert, privateKeyFile: Fixtures.serverKey,
            shutdownGracePeriod: .milliseconds(100)), router: router)
        try server.start()
        box.cleartextPort = server.cleartextPort ?? 0
        box.owner = self
    }

    private let box: Box
    private final class Box: @unchecked Sendable {
        // Written once before the first request.
        var cleartextPort = 0
        weak var owner: ImageTestServer?
    }

    var baseURL: String { "https://localhost:\(server.tlsPort!)" }
    var cleartextURL: String { "http://127.0.0.1:\(server.cleartextPort!)" }

    func record(_ request: ServerRequest) { lock.withLock { captured.append(request) } }
    var metricRequests: [ServerRequest] { lock.withLock { captured } }
    func countCleartextHit() { lock.withLock { cleartextHits += 1 } }
    /// Requests that reached the server over plain http (ATS must prevent them).
    var plainHTTPHits: Int { lock.withLock { cleartextHits } }

    func stop() async { await server.stop() }
}
