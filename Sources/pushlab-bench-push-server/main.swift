// A minimal APNs/FCM-shaped HTTP/2 + TLS server for benchmarks/apns-send.sh and fcm-send.sh:
// every peer (pushlab, aioapns, firebase-admin, h2load) talks to the same server, which does
// as little as possible so the clients are what is measured.
//
//   POST /3/device/{token}                      → 200, apns-id echoed (generated when absent)
//   POST /v1/projects/{p}/messages:send         → 200 {"name":"projects/p/messages/<n>"}
//   POST /token                                 → an OAuth2 access token (any assertion)
//
// usage: pushlab-bench-push-server [--port 0] [--cert certs/server.pem] [--key certs/server.key]
//                                  [--max-streams 500]
// Prints "https://localhost:<port>" on stdout, runs until SIGTERM/SIGINT, then prints the
// number of requests it answered per route on stderr.
import Foundation
import PushHTTP
import Synchronization

final class RouteCounters: Sendable {
    let apns = Atomic<Int>(0)
    let fcm = Atomic<Int>(0)
    let token = Atomic<Int>(0)
}

var options: [String: String] = ["--port": "0", "--cert": "certs/server.pem", "--key": "certs/server.key", "--max-streams": "500"]
var argv = CommandLine.arguments.dropFirst()
while let flag = argv.popFirst() {
    guard options[flag] != nil, let value = argv.popFirst() else {
        FileHandle.standardError.write(Data("usage: pushlab-bench-push-server [--port N] [--cert PEM] [--key PEM] [--max-streams N]\n".utf8))
        exit(2)
    }
    options[flag] = value
}

let counters = RouteCounters()
var router = Router()
router.add("POST", "/3/device/{token}") { request in
    counters.apns.add(1, ordering: .relaxed)
    let id = request.headers["apns-id"] ?? UUID().uuidString.lowercased()
    return .now(ServerResponse(status: 200, headers: ["apns-id": id]))
}
router.add("POST", "/v1/projects/{project}/messages:send") { request in
    let n = counters.fcm.add(1, ordering: .relaxed).newValue
    return .now(.json(200, #"{"name":"projects/\#(request.pathParameters["project"] ?? "p")/messages/0:\#(n)"}"#))
}
router.add("POST", "/token") { _ in
    let n = counters.token.add(1, ordering: .relaxed).newValue
    return .now(.json(200, #"{"access_token":"bench-access-token-\#(n)","expires_in":3599,"token_type":"Bearer"}"#))
}

// Block SIGTERM/SIGINT in every thread (the server's threads inherit this mask) and wait for
// them synchronously on the main thread.
var stopSignals = sigset_t()
sigemptyset(&stopSignals)
sigaddset(&stopSignals, SIGTERM)
sigaddset(&stopSignals, SIGINT)
pthread_sigmask(SIG_BLOCK, &stopSignals, nil)

let configuration = HTTPServerConfiguration(
    host: "127.0.0.1", tlsPort: Int(options["--port"]!) ?? 0, cleartextPort: nil,
    certificateFile: options["--cert"], privateKeyFile: options["--key"],
    settings: HTTP2Settings(maxConcurrentStreams: UInt32(options["--max-streams"]!) ?? 500),
    shutdownGracePeriod: .seconds(2))
let server = HTTPServer(configuration: configuration, router: router)
do {
    try server.start()
} catch {
    FileHandle.standardError.write(Data("pushlab-bench-push-server: \(error)\n".utf8))
    exit(1)
}
FileHandle.standardOutput.write(Data("https://localhost:\(server.tlsPort!)\n".utf8))

var received: Int32 = 0
sigwait(&stopSignals, &received)
let finished = DispatchSemaphore(value: 0)
Task.detached {
    await server.stop()
    finished.signal()
}
finished.wait()
FileHandle.standardError.write(Data("answered apns=\(counters.apns.load(ordering: .relaxed)) fcm=\(counters.fcm.load(ordering: .relaxed)) token=\(counters.token.load(ordering: .relaxed))\n".utf8))
