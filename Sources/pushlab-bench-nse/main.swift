// Measures the NSE emulator for benchmarks/nse.sh; not part of the CLI.
// Starts pushlab's HTTPServer (TLS, dev certificate) serving a 1 MB PNG, a 4 KB PNG and the
// /v1/track route, then (1) runs single pushes with the 1 MB image one after another and
// (2) runs many NSE runs concurrently with the small image, printing key=value lines.
import Foundation
import PushCore
import PushDevice
import PushHTTP

func arg(_ name: String, _ def: String) -> String {
    let a = CommandLine.arguments
    if let i = a.firstIndex(of: name), i + 1 < a.count { return a[i + 1] }
    return def
}
let root = arg("--root", FileManager.default.currentDirectoryPath)
let singles = Int(arg("--singles", "30"))!
let total = Int(arg("--pushes", "5000"))!
let concurrency = Int(arg("--concurrency", "64"))!
let storeKind = AppGroupStoreKind(rawValue: arg("--store", "off"))!

func png(_ size: Int) -> [UInt8] {
    var b: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8) + [0, 0, 4, 0, 0, 0, 2, 0, 8, 6, 0, 0, 0]
    b += [UInt8](repeating: 0, count: max(0, size - b.count))
    return b
}
let big = png(1 << 20), small = png(4096)
var router = Router()
router.add("GET", "/1mb.png", { _ in .now(ServerResponse(status: 200, headers: ["content-type": "image/png"], body: big)) })
router.add("GET", "/small.png", { _ in .now(ServerResponse(status: 200, headers: ["content-type": "image/png"], body: small)) })
router.add("POST", CIOMetricRoute.track.path, { _ in .now(ServerResponse.json(200, "{}")) })
let server = HTTPServer(configuration: HTTPServerConfiguration(tlsPort: 0, cleartextPort: nil, certificateFile: "\(root)/certs/server.pem",
                                                               privateKeyFile: "\(root)/certs/server.key"), router: router)
try server.start()
let base = "https://localhost:\(server.tlsPort!)"
print("server=\(base)")

let work = FileManager.default.temporaryDirectory.appendingPathComponent("pushlab-bench-nse-\(getpid())")
try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: work) }
let profile = AppProfile(bundleID: "io.pushlab.demo", extensionBundleID: "io.pushlab.demo.richpush", cdpAPIKey: "bench",
                         metricsBaseURL: base, appGroupStore: storeKind)
let client = try HTTPClient(configuration: HTTPClientConfiguration(caFile: "\(root)/certs/ca.pem", maxConnectionsPerHost: 1))
let store = try PendingMetricStores.open(profile: profile, process: .notificationServiceExtension, container: work.appendingPathComponent("group"))

func payload(_ path: String, _ n: Int) -> JSONValue {
    try! JSONParser().parse(#"{"aps":{"alert":{"title":"t","body":"b"},"mutable-content":1},"CIO":{"push":{"image":"\#(base)\#(path)"}},"CIO-Delivery-ID":"bench-\#(n)","CIO-Delivery-Token":"tok"}"#).root
}
func nse() -> NotificationServiceExtension {
    NotificationServiceExtension(configuration: NSEConfiguration(profile: profile, store: store, temporaryDirectory: work), transport: client)
}

// (1) One push with a 1 MB image: push received → content handler, wall time.
var times: [Double] = []
for i in 0..<singles {
    let start = ContinuousClock.now
    let r = await nse().run(payload: payload("/1mb.png", i))
    let ms = Double((ContinuousClock.now - start).components.attoseconds) / 1e15 + Double((ContinuousClock.now - start).components.seconds) * 1000
    guard r.delivered == .rich, r.metric.result == .acknowledged else { print("error=single run \(i): \(r.image.reason ?? "") \(r.metric.result)"); exit(1) }
    times.append(ms)
    for a in r.notification?.attachments ?? [] { unlink(a.path) }
}
let first = times[0]
let warm = Array(times.dropFirst().sorted())
// The true median: the mean of the two middle runs when their count is even.
let median = warm.count % 2 == 1 ? warm[warm.count / 2] : (warm[warm.count / 2 - 1] + warm[warm.count / 2]) / 2
print(String(format: "single_first_ms=%.2f single_median_ms=%.2f single_p95_ms=%.2f", first, median, warm[Int(Double(warm.count) * 0.95)]))

// (2) Concurrent NSE runs with the small image.
let start = ContinuousClock.now
let ok = await withTaskGroup(of: Bool.self) { group -> Int in
    var next = 0, good = 0
    func add() { let n = next; next += 1; group.addTask { let r = await nse().run(payload: payload("/small.png", 100_000 + n)); for a in r.notification?.attachments ?? [] { unlink(a.path) }; return r.delivered == .rich && r.metric.result == .acknowledged } }
    for _ in 0..<min(concurrency, total) { add() }
    while let result = await group.next() {
        if result { good += 1 }
        if next < total { add() }
    }
    return good
}
let elapsed = ContinuousClock.now - start
let secs = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
print(String(format: "concurrent_pushes=%d concurrent_ok=%d concurrency=%d store=%@ seconds=%.3f pushes_per_s=%.0f", total, ok, concurrency, storeKind.rawValue, secs, Double(total) / secs))
await client.shutdown()
await server.stop()
