// pushlab-bench-client: drives pushlab's HTTPClient as hard as it can and prints one line of
// results, for benchmarks/transport-client.sh. Not part of the user-facing CLI.
//
//   pushlab-bench-client --url URL [-n 100000] [-m 100] [--mode http2|h2c|http1]
//                        [--ca-file PEM] [--body-bytes 200] [--method POST] [--clients 1]
//
// Keeps `m` requests in flight per client (`m` worker tasks, like h2load -m), `--clients`
// clients on their own connections and loop threads sharing the total of `n` requests.
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
    let client = try HTTPClient(configuration: config)
    let body = [UInt8](repeating: UInt8(ascii: "x"), count: o.bodyBytes)
    let request = HTTPRequest(method: o.method, url: o.url, headers: ["content-type": "application/octet-stream"],
                              body: body)
    // `window` workers, each sending its requests one after another: `window` requests in
    // flight, like h2load -m, without a new task per request.
    let workers = max(1, min(o.window, share))
    let tally = try await withThrowingTaskGroup(of: Tally.self) { group in
        for worker in 0..<workers {
            let count = share / workers + (worker < share % workers ? 1 : 0)
            group.addTask {
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
print(String(format: "requests=%d ok=%d non2xx=%d failed=%d connections=%d seconds=%.3f rps=%.0f",
             options.total, ok, non2xx, failed, connections, seconds, Double(ok + non2xx) / seconds))
print("redundant-reset-filter=\(HTTPClient.dropsRedundantStreamResets ? "on" : "off")")
if let e = tallies.compactMap(\.firstError).first { print("first error: \(e)") }
exit(failed == 0 && non2xx == 0 ? 0 : 1)
