import Foundation
import OfflineLab
import PushAuth
import PushCore
import PushGateway
import PushHTTP
import PushSend

// benchmarks/live-activities.sh: one broadcast to N subscribed virtual activities in the emulator.
// Prints one JSON line per run: the time from sending the broadcast until every activity has
// applied it, and the resident memory the N subscribed activities added, per activity.
// Usage: pushlab-bench-live ROOT ACTIVITIES RUNS

let arguments = CommandLine.arguments
guard arguments.count == 4, let count = Int(arguments[2]), let runs = Int(arguments[3]), count > 0, runs > 0 else {
    FileHandle.standardError.write(Data("usage: pushlab-bench-live REPO_ROOT ACTIVITIES RUNS\n".utf8))
    exit(2)
}
let root = arguments[1]

/// Resident set size in bytes (/proc/self/statm, field 2, in pages).
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    return (fields.count > 1 ? Int(fields[1]) ?? 0 : 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
}

let channels = BroadcastChannelRegistry()
let fleet = LiveActivityFleet(channels: channels, keepsTimelines: false)
let config = GatewayConfiguration(certificateFile: root + "/certs/server.pem", privateKeyFile: root + "/certs/server.key")
let gateway = try Gateway(configuration: config, keys: try GatewayKeys.developmentDefaults(certsDirectory: root + "/certs"),
                          devices: DeviceRegistry(), sink: fleet, broadcastSink: fleet, channels: channels)
try gateway.start()
let http = try HTTPClient(configuration: HTTPClientConfiguration(caFile: root + "/certs/ca.pem"))
let key = try APNsAuthKey.load(path: root + "/certs/AuthKey_PLDEVKEY01.p8", teamID: "PLDEVTEAM1")
let client = BroadcastChannelClient(management: try .custom(gateway.apnsURL!), push: try .custom(gateway.apnsURL!), transport: http,
                                    credential: ProviderTokenCache(key: key))
guard case .success(let channel, _) = await client.create(bundleID: "io.pushlab.demo", policy: .noStorage) else {
    FileHandle.standardError.write(Data("channel create failed\n".utf8))
    exit(1)
}

let before = residentBytes()
let state: JSONValue = ["status": "placed", "minutesAway": 30]
for i in 0..<count {
    guard case .success = fleet.startActivity(device: "phone-\(i)", attributesType: "DeliveryAttributes", attributes: ["orderID": "A-1"],
                                              contentState: state, channelID: channel) else { exit(1) }
}
let after = residentBytes()
let perActivity = Double(after - before) / Double(count)

let base = Int(Date().timeIntervalSince1970)
for run in 1...runs {
    let already = fleet.applied
    let payload = Array(#"{"aps":{"event":"update","timestamp":\#(base + run * 10),"content-state":{"status":"on the way","minutesAway":\#(run)}}}"#.utf8)
    let start = ContinuousClock.now
    guard case .success = await client.broadcast(bundleID: "io.pushlab.demo", channelID: channel, payload: payload, expiration: 0) else {
        FileHandle.standardError.write(Data("broadcast failed\n".utf8))
        exit(1)
    }
    let accepted = ContinuousClock.now - start
    while fleet.applied < already + count { try await Task.sleep(for: .microseconds(200)) }
    let all = ContinuousClock.now - start
    func ms(_ d: Duration) -> Double { Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15 }
    print(#"{"run":\#(run),"activities":\#(count),"accepted_ms":\#(ms(accepted)),"all_applied_ms":\#(ms(all)),"bytes_per_activity":\#(Int(perActivity))}"#)
}
await http.shutdown()
await gateway.stop()
