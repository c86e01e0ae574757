import Foundation
@testable import PushRelay
import Synchronization
import TestSupport
import XCTest

/// `RelayMetrics.finished` tallies a batch before taking its lock; `/metrics` must still show
/// every result under its labels and in cumulative latency buckets (Prometheus `le`).
final class RelayMetricsTests: XCTestCase {
    private func result(_ app: String, _ platform: String, failedWith reason: String? = nil, seconds: Double) -> RelayMetrics.Finished {
        let outcome = TargetOutcome(status: reason == nil ? .sent : .failed, reason: reason, attempts: 1, finishedAt: Date())
        return RelayMetrics.Finished(app: app, platform: platform, outcome: outcome, latency: .nanoseconds(Int64(seconds * 1e9)))
    }

    func testResultsCountUnderTheirLabelsAcrossRunsAndBatches() {
        let metrics = RelayMetrics()
        metrics.finished([result("a", "apns", seconds: 0.01), result("a", "apns", seconds: 0.01),
                          result("b", "apns", failedWith: "Unregistered", seconds: 0.01), result("a", "apns", seconds: 0.01),
                          result("a", "fcm", seconds: 0.01), result("b", "apns", failedWith: "BadDeviceToken", seconds: 0.01)])
        metrics.finished([result("a", "apns", seconds: 0.01), result("b", "apns", failedWith: "Unregistered", seconds: 0.01)])
        let text = metrics.prometheusText(depth: nil)
        XCTAssertTrue(text.contains(#"pushlab_relay_sent_total{app="a",platform="apns"} 4"#), text)
        XCTAssertTrue(text.contains(#"pushlab_relay_sent_total{app="a",platform="fcm"} 1"#), text)
        XCTAssertTrue(text.contains(#"pushlab_relay_failed_total{app="b",platform="apns",reason="Unregistered"} 2"#), text)
        XCTAssertTrue(text.contains(#"pushlab_relay_failed_total{app="b",platform="apns",reason="BadDeviceToken"} 1"#), text)
        XCTAssertEqual(metrics.totals(app: "a").sent, ["apns": 4, "fcm": 1])
    }

    func testLatencyBucketsAreCumulativeAndSlowResultsCountInInfOnly() {
        let metrics = RelayMetrics()
        metrics.finished([result("a", "apns", seconds: 0.0005), result("a", "apns", seconds: 0.003),
                          result("a", "fcm", seconds: 0.2), result("a", "apns", seconds: 20)])
        metrics.finished([result("a", "apns", seconds: 0.003)])
        let text = metrics.prometheusText(depth: nil)
        for (le, count) in [("0.001", 1), ("0.0025", 1), ("0.005", 3), ("0.01", 3), ("10.0", 3), ("+Inf", 4)] {
            XCTAssertTrue(text.contains("pushlab_relay_send_latency_seconds_bucket{platform=\"apns\",le=\"\(le)\"} \(count)\n"), "le \(le): \(text)")
        }
        XCTAssertTrue(text.contains(#"pushlab_relay_send_latency_seconds_bucket{platform="fcm",le="0.1"} 0"#), text)
        XCTAssertTrue(text.contains(#"pushlab_relay_send_latency_seconds_bucket{platform="fcm",le="0.25"} 1"#), text)
        XCTAssertTrue(text.contains(#"pushlab_relay_send_latency_seconds_count{platform="apns"} 4"#), text)
        let sum = text.split(separator: "\n").first { $0.hasPrefix(#"pushlab_relay_send_latency_seconds_sum{platform="apns"}"#) }
        XCTAssertEqual(sum.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0, 20.0065, accuracy: 1e-6)
    }
}

/// `Wakeup` (the workers' and webhooks' wait): a signal before the wait is kept, a signal
/// wakes a waiter, a wait with nobody signalling ends at its timeout, and a wait without a
/// timeout ends at its signal only (not at the timer an earlier wait left behind).
final class WakeupTests: XCTestCase {
    func testASignalBeforeTheWaitIsKept() async {
        let wakeup = Wakeup()
        wakeup.signal()
        let done = expectation(description: "the wait returns")
        Task {
            await wakeup.wait(timeout: .seconds(600))
            done.fulfill()
        }
        await fulfillment(of: [done], timeout: 60)
    }

    func testASignalWakesTheWaiter() async {
        let wakeup = Wakeup()
        let done = expectation(description: "the waiter wakes")
        Task {
            await wakeup.wait(timeout: .seconds(600))
            done.fulfill()
        }
        wakeup.signal()
        await fulfillment(of: [done], timeout: 60)
    }

    func testAnUntimedWaitEndsAtItsSignalNotAtAnEarlierWaitsTimer() async {
        let wakeup = Wakeup()
        // A timed wait ended by a signal leaves its 20 ms timer behind.
        let first = expectation(description: "the timed wait returns at the signal")
        Task {
            await wakeup.wait(timeout: .milliseconds(20))
            first.fulfill()
        }
        // The timed wait must be waiting (its timer armed) before the signal, or the signal is
        // only stored and the wait never arms a timer: wait for that event, not a fixed sleep.
        let waiting = await Poll.until(timeout: 20, interval: .milliseconds(1)) { wakeup.hasWaiter }
        XCTAssertTrue(waiting, "the timed wait never started waiting")
        wakeup.signal()
        await fulfillment(of: [first], timeout: 60)
        let early = expectation(description: "the untimed wait returns before its signal")
        early.isInverted = true
        let done = expectation(description: "the untimed wait returns at its signal")
        Task {
            await wakeup.wait()
            early.fulfill()
            done.fulfill()
        }
        await fulfillment(of: [early], timeout: 0.2)
        wakeup.signal()
        await fulfillment(of: [done], timeout: 60)
    }

    /// Every wait returns while signals race the waits and their timers: 3,000 waits, timed
    /// (0-1 ms) and untimed (every 10th, ended only by a signal), against a thread that
    /// signals until the waiter is done. A lost signal or a continuation never resumed hangs
    /// the waiter (60 s guard).
    func testEveryWaitReturnsUnderRacingSignalsAndTimers() async {
        let wakeup = Wakeup()
        let finished = expectation(description: "every wait returned")
        let done = Mutex(false)
        // Not awaited: a waiter stuck on a lost signal cannot be cancelled (the test then fails
        // at the guard below and leaves it behind).
        Task.detached {
            for i in 0..<3_000 {
                if i % 10 == 9 {
                    await wakeup.wait()
                } else {
                    await wakeup.wait(timeout: .microseconds(i % 1_000))
                }
            }
            done.withLock { $0 = true }
            finished.fulfill()
        }
        let signaller = Thread {
            var n = 0
            while !done.withLock({ $0 }) {
                wakeup.signal()
                n += 1
                if n % 4 == 0 { usleep(50) }
            }
        }
        signaller.start()
        await fulfillment(of: [finished], timeout: 60)
        done.withLock { $0 = true }  // stops the signaller either way
    }

    func testAWaitWithoutASignalEndsAtItsTimeout() async {
        let wakeup = Wakeup()
        let done = expectation(description: "the timeout ends the wait")
        Task {
            await wakeup.wait(timeout: .milliseconds(20))
            done.fulfill()
        }
        await fulfillment(of: [done], timeout: 60)
    }
}

/// `SerialQueueExecutor` (the recorder on the SQLite queue's writer thread): a task that
/// prefers it runs on its queue, before and after a suspension.
final class SerialQueueExecutorTests: XCTestCase {
    func testATaskThatPrefersItRunsOnItsQueue() async {
        let queue = DispatchQueue(label: "test.serial")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 7)
        let executor = SerialQueueExecutor(queue)
        let seen = await Task(executorPreference: executor) { () async -> [Int?] in
            let before = DispatchQueue.getSpecific(key: key)
            try? await Task.sleep(for: .milliseconds(1))
            return [before, DispatchQueue.getSpecific(key: key)]
        }.value
        XCTAssertEqual(seen, [7, 7])
        let elsewhere = await Task { DispatchQueue.getSpecific(key: key) }.value
        XCTAssertNil(elsewhere)
    }
}
