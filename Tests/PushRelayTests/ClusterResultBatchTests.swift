import Foundation
import PushCore
import PushRedis
@testable import PushRelay
import TestSupport
import XCTest

/// Results of targets claimed from a real 3-master Redis Cluster (one stream per master),
/// recorded the way the relay's recorder does (`HeldTargets` gathers the answers, each batch
/// goes to `RedisPushQueue.complete`): the `complete` script calls each master ran, counted by
/// the master itself (`INFO commandstats`, reset after the claims), are about one per
/// `recordBatch` results it holds, not one per `recordBatch ÷ 3` (issue 37: on N streams a
/// shared buffer cut each batch in N calls, each paying the script's fixed cost); and sends
/// plus answers not yet recorded stay within `2 × concurrency` throughout.
final class ClusterResultBatchTests: XCTestCase {
    func testCompleteCallsOnThreeStreamsCarryAboutABatchEachWithinTheSendBound() async throws {
        let servers = try RedisClusterServers()
        defer { servers.stop() }
        let queue = RedisPushQueue(cluster: try RedisClusterEndpoint(url: servers.url),
                                   configuration: .init(prefix: "batch", capacity: 100_000, idleBlock: .zero), clientName: "a")
        try await queue.prepare()
        // 12 chunks of 64 in every stream.
        _ = try await queue.enqueue(PushQueueContract.submission("p_batch", tokens: 3 * 12 * 64, at: Date()))
        var claimed: [ClaimedTarget] = []
        while true {
            let got = try await queue.claim(consumer: "a", limit: 512, lease: .seconds(120))
            if got.isEmpty { break }
            claimed += got
        }
        XCTAssertEqual(claimed.count, 3 * 12 * 64)
        // Answers come from the three streams in turn (the worst case for per-stream calls).
        let byStream = Dictionary(grouping: claimed) { queue.stream(ofReceipt: $0.receipt) }
        XCTAssertEqual(byStream.keys.sorted(), [0, 1, 2])
        var interleaved: [ClaimedTarget] = []
        for k in 0..<(12 * 64) { for s in 0..<3 { interleaved.append(byStream[s]![k]) } }

        for node in servers.nodes { _ = try node.cli(["CONFIG", "RESETSTAT"]) }
        let concurrency = 64
        let held = HeldTargets(concurrency: concurrency, streamOf: { queue.stream(ofReceipt: $0) })
        held.claimed(interleaved)
        var sending = held.handOut().starting
        let t0 = ContinuousClock.now  // one instant: no gather wait runs out
        var recorded = 0, batches = 0, steps = 0, mostUnrecorded = 0
        while recorded < interleaved.count {
            steps += 1
            guard steps < 20_000 else { return XCTFail("no progress: \(held.snapshot)") }
            if !sending.isEmpty {
                let claim = sending.removeFirst()
                let answer = SendAnswer(claim: claim, attempt: .sent(status: 200, providerID: "id", attempts: 1), start: t0)
                if let next = held.answered(answer, now: t0).next { sending.append(next) }
            }
            mostUnrecorded = max(mostUnrecorded, held.unrecorded)
            while case .write(let batch) = held.nextBatch(now: t0) {
                let report = try await queue.complete(batch.map { PushQueueContract.sent($0.claim, at: Date()) })
                XCTAssertEqual(report.duplicates, 0)
                recorded += batch.count
                batches += 1
                _ = held.recorded(batch)
                sending += held.handOut().starting
                while sending.count < concurrency, let next = held.startIfRoom() { sending.append(next) }
            }
        }
        XCTAssertLessThanOrEqual(mostUnrecorded, 2 * concurrency, "sends plus answers not yet recorded")
        // Script calls per master since the reset: only `complete` ran (one per stream in a batch).
        var calls: [Int] = []
        for node in servers.nodes {
            let stats = try node.cli(["INFO", "commandstats"])
            calls.append(stats.split(whereSeparator: \.isNewline).reduce(0) { sum, line in
                guard line.hasPrefix("cmdstat_evalsha:") || line.hasPrefix("cmdstat_eval:"),
                      let c = line.split(separator: "=").dropFirst().first?.split(separator: ",").first, let n = Int(c) else { return sum }
                return sum + n
            })
        }
        let total = calls.reduce(0, +), perStream = 12 * 64, perStreamResults = perStream
        print("complete calls per master \(calls) for \(perStreamResults) results each, in \(batches) batches; most unrecorded \(mostUnrecorded)")
        // A shared buffer of recordBatch (32) answers from 3 streams: 3 calls of ~11 per batch,
        // 3 × 768 ÷ 32 × 3 = 216 calls. Per stream: a call carries a batch (32), or — the send
        // bound caps what gathers over the streams at 2 × concurrency − sends in flight — the
        // fullest stream's answers once the bound holds sends back; at least half a batch.
        XCTAssertLessThanOrEqual(total, 3 * perStream / (held.recordBatch / 2),
                                 "complete calls per master \(calls) for \(perStream) results each, in \(batches) batches")
        XCTAssertGreaterThanOrEqual(total, 3 * perStream / held.recordBatch, "a call carries at most a batch: \(calls)")
        let status = try await queue.status(of: "p_batch", includeTargets: false)
        XCTAssertEqual(status?.sent, 3 * perStream)
        XCTAssertEqual(status?.isFinished, true)
        await queue.close()
    }
}
