import Foundation
import TestSupport

/// A real third-party HTTPS server (Python's http.server + ssl, dev certificate) for the two
/// behaviours an all-at-once response cannot show: a body that drips in slowly, and how many
/// bytes of an 11 MB image the server actually got to send before the client aborted.
final class SlowImageServer: @unchecked Sendable {
    private let server: ServerProcess
    let port: Int
    let log: URL

    private static let script = #"""
import http.server, ssl, sys, time
log = open(sys.argv[3], "a", buffering=1)
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_GET(self):
        png = bytes([0x89,0x50,0x4E,0x47,0x0D,0x0A,0x1A,0x0A])
        if self.path == "/drip.png":
            self.send_response(200); self.send_header("Content-Type", "image/png"); self.send_header("Content-Length", "100000"); self.end_headers()
            try:
                self.wfile.write(png)
                for _ in range(1000):
                    time.sleep(0.05); self.wfile.write(b"\0" * 100); self.wfile.flush()
            except Exception: pass
        elif self.path == "/huge.png":
            size = 11 * 1024 * 1024
            self.send_response(200); self.send_header("Content-Type", "image/png"); self.send_header("Content-Length", str(size)); self.end_headers()
            sent = 0
            try:
                chunk = png + b"\0" * (65536 - 8)
                while sent < size:
                    self.wfile.write(chunk); sent += len(chunk)
                    time.sleep(0.002)
                self.wfile.flush()
            except Exception: pass
            log.write("huge sent %d\n" % sent)
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); ctx.load_cert_chain(sys.argv[1], sys.argv[2])
server.socket = ctx.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
server.serve_forever()
"""#

    init() throws {
        log = Fixtures.temporaryDirectory("slow-server").appendingPathComponent("log.txt")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        // The first line it prints is its port (it waits at most 30 s for it, then fails with the output).
        server = try ServerProcess(["-c", SlowImageServer.script, Fixtures.serverCert, Fixtures.serverKey, log.path],
                                   executable: "/usr/bin/python3") { $0.contains("\n") }
        let line = server.stdout.split(separator: "\n").first.map(String.init) ?? ""
        guard let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            server.killHard()
            throw TestEnvironmentError("no port from python: '\(line)'")
        }
        self.port = port
    }

    var baseURL: String { "https://localhost:\(port)" }

    /// Bytes of /huge.png the server wrote before the client went away (waits for the line).
    func hugeBytesSent(timeout: TimeInterval = 10) -> Int? {
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("huge sent ") }) {
                return Int(line.dropFirst("huge sent ".count))
            }
            usleep(50_000)
        }
        return nil
    }

    func stop() {
        // SIGKILL: the child inherits the test process's blocked-signal mask, so SIGTERM may wait.
        server.killHard()
        try? FileManager.default.removeItem(at: log.deletingLastPathComponent())
    }
}
