// pushlab-bench-client: drives one of pushlab's HTTP clients as hard as it can and prints one line of
// results, for benchmarks/transport-client.sh. Not part of the user-facing CLI.
//
//   pushlab-bench-client --url URL [-n 100000] [-m 100] [--mode http2|h2c|http1]
//                        [--ca-file PEM] [--body-bytes 200] [--method POST] [--clients 1]
//                        [--executor loop|pool] [--transport curl|nghttp2]
//
// Keeps `m` requests in flight per client (`m` worker tasks, like h2load -m), `--clients`
// clients on their own connections and loop threads sharing the total of `n` requests.
// `--executor loop` (the default) runs each client's workers on its loop thread
// (`HTTPClient.executor`); `pool` runs them on Swift's global pool, handing every request to
// the loop thread and every response back. `--transport` picks libcurl's `HTTPClient` (the
// default, as before) or the direct `NGHTTP2Client` (through `HTTPTransports.make`).
// Also prints the process's CPU time (user + system, /proc/self/stat) per request.
import Foundation
import PushHTTP

struct Options {
    var url = ""
    var total = 100_000
    var window = 100
    var mode = HTTPClientConfiguration.ProtocolMode.http2
    var caFile: String?
    var bodyBytes = 200
    var method = "POST"
    var clients = 1
    var onLoop = true
    var transport = HTTPTransportKind.curl
}

func parse() -> Options {
    var o = Options()
    var args = CommandLine.arguments.dropFirst().makeIterator()
    func value(_ flag: String) -> String {
        guard let v = args.next() else { fail("\(flag) needs a value") }
        return v
    }
    while let a = args.next() {
        switch a {
        case "--url": o.url = value(a)
        case "-n": o.total = Int(value(a)) ?? o.total
        case "-m": o.window = Int(value(a)) ?? o.window
        case "--mode":
            switch value(a) {
            case "http2": o.mode = .http2
            case "h2c": o.mode = .h2cPriorKnowledge
            case "http1": o.mode = .http1
            default: fail("--mode is http2, h2c or http1")
            }
        case "--ca-file": o.caFile = value(a)
        case "--body-bytes": o.bodyBytes = Int(value(a)) ?? o.bodyBytes
        case "--method": o.method = value(a)
        case "--clients": o.clients = max(1, Int(value(a)) ?? 1)
        case "--executor":
            switch value(a) {
            case "loop": o.onLoop = true
            case "pool": o.onLoop = false
            default: fail("--executor is loop or pool")
            }
        case "--transport":
            guard let kind = HTTPTransportKind(rawValue: value(a)) else { fail("--transport is curl or nghttp2") }
            o.transport = kind
        default: fail("unknown option \(a)")
        }
    }
    if o.url.isEmpty { fail("--url is required") }
    return o
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("pushlab-bench-client: \(message)\n".utf8))
    exit(2)
}

struct Tally: Sendable {
    var ok = 0, failed = 0, non2xx = 0, connections = 0
    var firstError: String?
}

func runClient(_ o: Options, share: Int) async throws -> Tally {
    let config = HTTPClientConfiguration(protocolMode: o.mode, caFile: o.caFile,
                                         maxConcurrentStreams: max(o.window, 1))
    let client = try HTTPTransports.make(configuration: config, preferring: o.transport)
    let body = [UInt8](repeating: UInt8(ascii: "x"), count: o.bodyBytes)
    let request = HTTPRequest(method: o.method, url: o.url, headers: ["content-type": "application/octet-stream"],
                              body: body)
    // `window` workers, each sending its requests one after another: `window` requests in
    // flight, like h2load -m, without a new task per request.
    let workers = max(1, min(o.window, share))
    let tally = try await withThrowingTaskGroup(of: Tally.self) { group in
        for worker in 0..<workers {
            let count = share / workers + (worker < share % workers ? 1 : 0)
            group.addTask(executorPreference: o.onLoop ? client.executor : nil) {
                var mine = Tally()
                for _ in 0..<count {
                    do {
                        let status = try await client.send(request).status
                        if (200..<300).contains(status) { mine.ok += 1 } else { mine.non2xx += 1 }
                    } catch let e as HTTPClientError {
                        mine.failed += 1
                        if mine.firstError == nil { mine.firstError = e.description }
                    }
                }
                return mine
            }
        }
        var all = Tally()
        for try await t in group {
            all.ok += t.ok
            all.failed += t.failed
            all.non2xx += t.non2xx
            all.firstError = all.firstError ?? t.firstError
        }
        return all
    }
    var result = tally
    await client.shutdown()
    result.connections = client.stats.connectionsOpened
    return result
}

/// User + system CPU time of this process so far, in seconds (/proc/self/stat fields 14, 15).
func processCPUSeconds() -> Double {
    guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return 0 }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    // After the ")" the fields start at 3 (state); utime is field 14, stime 15.
    guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

let options = parse()
let start = ContinuousClock.now
let shares = (0..<options.clients).map { i in options.total / options.clients + (i < options.total % options.clients ? 1 : 0) }
let tallies = try await withThrowingTaskGroup(of: Tally.self) { group in
    for share in shares { group.addTask { try await runClient(options, share: share) } }
    var all: [Tally] = []
    for try await t in group { all.append(t) }
    return all
}
let elapsed = ContinuousClock.now - start
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
let ok = tallies.reduce(0) { $0 + $1.ok }
let failed = tallies.reduce(0) { $0 + $1.failed }
let non2xx = tallies.reduce(0) { $0 + $1.non2xx }
let connections = tallies.reduce(0) { $0 + $1.connections }
let cpu = processCPUSeconds()
print(String(format: "requests=%d ok=%d non2xx=%d failed=%d connections=%d seconds=%.3f rps=%.0f cpu_s=%.2f cpu_us_per_req=%.1f",
             options.total, ok, non2xx, failed, connections, seconds, Double(ok + non2xx) / seconds,
             cpu, cpu * 1e6 / Double(max(options.total, 1))))
print("transport=\(HTTPTransports.kind(for: HTTPClientConfiguration(protocolMode: options.mode), preferring: options.transport).kind.rawValue)")
print("redundant-reset-filter=\(HTTPClient.dropsRedundantStreamResets ? "on" : "off")")
if let e = tallies.compactMap(\.firstError).first { print("first error: \(e)") }
exit(failed == 0 && non2xx == 0 ? 0 : 1)
