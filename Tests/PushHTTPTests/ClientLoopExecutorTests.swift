@testable import PushHTTP
import Foundation
import Synchronization
import TestSupport
import XCTest

/// Tasks that prefer `HTTPClient.executor` run on the client's loop thread, and requests sent
/// from there behave exactly as from anywhere else: answers in order per task, cancellation,
/// shutdown (after which such tasks carry on elsewhere).
class ClientLoopExecutorTests: ClientTransportTestCase {
    /// The name of the thread running the caller (the loop thread is `pushlab-client`).
    private static func threadName() -> String {
        let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
        return comm.trimmingCharacters(in: .newlines)
    }

    func testTasksOnTheExecutorRunOnTheLoopThreadAndGetTheirOwnAnswersInOrder() async throws {
        let server = try ClientTestServer()
        let client = try makeClient(.testing())
        let results = try await withThrowingTaskGroup(of: [String].self) { group in
            for worker in 0..<8 {
                group.addTask(executorPreference: client.executor) {
                    var seen: [String] = []
                    for i in 0..<10 {
                        let seq = "\(worker)-\(i)"
                        let response = try await client.send(HTTPRequest(url: server.tlsURL + "/echo", headers: ["x-seq": seq]))
                        XCTAssertEqual(response.status, 200)
                        seen.append(response.headers["x-seq"] ?? "")
                        seen.append(Self.threadName())
                    }
                    return seen
                }
            }
            return try await group.reduce(into: [[String]]()) { $0.append($1) }
        }
        XCTAssertEqual(results.count, 8)
        for seen in results {
            let worker = seen[0].split(separator: "-")[0]
            let seqs = stride(from: 0, to: seen.count, by: 2).map { seen[$0] }
            XCTAssertEqual(seqs, (0..<10).map { "\(worker)-\($0)" }, "each task gets its own answers, in its order")
            let threads = Set(stride(from: 1, to: seen.count, by: 2).map { seen[$0] })
            XCTAssertEqual(threads, ["pushlab-client"], "the callers resumed on the loop thread")
        }
        XCTAssertEqual(client.stats.requestsCompleted, 80)
        XCTAssertEqual(client.stats.requestsFailed, 0)
        await client.shutdown()
        await server.stop()
    }

    func testCancellingATaskOnTheExecutorCancelsItsRequestAndTheClientCarriesOn() async throws {
        let server = try ClientTestServer()
        let client = try makeClient(.testing())
        let held = Task(executorPreference: client.executor) {
            try await client.send(HTTPRequest(url: server.tlsURL + "/held"))
        }
        let arrived = await Poll.until { server.held.arrived == 1 }
        XCTAssertTrue(arrived, "the held request never reached the server")
        held.cancel()
        do {
            _ = try await held.value
            XCTFail("a cancelled request returned a response")
        } catch let error as HTTPClientError {
            XCTAssertEqual(error, .cancelled)
        }
        let after = Task(executorPreference: client.executor) {
            try await client.send(HTTPRequest(url: server.tlsURL + "/echo")).status
        }
        let status = try await after.value
        XCTAssertEqual(status, 200)
        server.held.open()
        await client.shutdown()
        await server.stop()
    }

    func testShutdownFromATaskOnTheExecutorReturnsAndTheTaskContinuesOffTheLoop() async throws {
        let server = try ClientTestServer()
        let client = try makeClient(.testing(.h2cPriorKnowledge))
        let (status, threadBefore, threadAfter, refused) = await withTaskExecutorPreference(client.executor) {
            let status = (try? await client.send(HTTPRequest(url: server.cleartextURL + "/echo")).status) ?? 0
            let before = Self.threadName()
            await client.shutdown()
            let after = Self.threadName()
            var refused: HTTPClientError?
            do { _ = try await client.send(HTTPRequest(url: server.cleartextURL + "/echo")) } catch let e as HTTPClientError { refused = e } catch {}
            return (status, before, after, refused)
        }
        XCTAssertEqual(status, 200)
        XCTAssertEqual(threadBefore, "pushlab-client")
        XCTAssertNotEqual(threadAfter, "pushlab-client", "the loop thread has exited; the task must run elsewhere")
        XCTAssertEqual(refused, .shutDown)
        await server.stop()
    }

    func testAbortingShutdownFailsRequestsOfTasksOnTheExecutor() async throws {
        let server = try ClientTestServer()
        let client = try makeClient(.testing())
        _ = try await client.send(HTTPRequest(url: server.tlsURL + "/echo"))
        let inFlight = (0..<5).map { _ in
            Task(executorPreference: client.executor) { try await client.send(HTTPRequest(url: server.tlsURL + "/held")) }
        }
        let arrived = await Poll.until { server.held.arrived == 5 }
        XCTAssertTrue(arrived, "\(server.held.arrived) of 5 requests reached the server")
        await client.shutdown(abortInFlight: true)
        await assertEachFails(inFlight, with: .shutDown)
        server.held.open()
        await server.stop()
    }

    /// A task resumed from another thread while the loop is running a job lands in the inbox
    /// without a wakeup (the loop is awake). The loop must run it before it sleeps: the
    /// relay's stall (docs/relay.md) was the nghttp2 loop sleeping with such a job drained but
    /// not run, until something else woke it. Each round parks one task, then has a second task
    /// (on the loop thread) resume it from a plain thread and wait for that thread, so the job
    /// arrives exactly while the loop runs a job; no request is in flight (no timer either).
    func testATaskResumedFromAnotherThreadWhileTheLoopRunsAJobStillRuns() async throws {
        let client = try makeClient(.testing())
        for round in 0..<10 {
            let parked = ParkedContinuation()
            let ran = Flag()
            let second = Task(executorPreference: client.executor) {
                await withCheckedContinuation { parked.park($0) }
                ran.set()
            }
            let isParked = await Poll.until { parked.isParked }
            XCTAssertTrue(isParked, "round \(round): the task never parked")
            let first = Task(executorPreference: client.executor) {
                let resumed = DispatchSemaphore(value: 0)
                Thread {
                    parked.resume()
                    resumed.signal()
                }.start()
                resumed.wait()  // on the loop thread, on purpose: the job is queued while this one runs
            }
            await first.value
            let didRun = await Poll.until(timeout: 10) { ran.isSet }
            XCTAssertTrue(didRun, "round \(round): the resumed task never ran (the loop slept with its job queued)")
            if !didRun {
                await client.shutdown()  // wakes the loop: the stranded job runs, the task ends
                await second.value
                return
            }
            await second.value
            // The loop's sleeps are capped (1 s): a stranded job would run after the cap, but
            // the loop counts each such sleep as a missed wake-up.
            XCTAssertEqual(client.loopState.missedWakeups, 0, "round \(round): the loop slept on work it held")
        }
        await client.shutdown()
    }

    /// The loop's state as a dump shows it: asleep with a request in flight (the nghttp2 loop
    /// counts it and names its next deadline), then finished after shutdown.
    func testTheLoopStateShowsItAsleepWithARequestInFlight() async throws {
        let server = try ClientTestServer()
        let client = try makeClient(.testing())
        let held = Task { try await client.send(HTTPRequest(url: server.tlsURL + "/held")) }
        let arrived = await Poll.until { server.held.arrived == 1 }
        XCTAssertTrue(arrived, "the held request never reached the server")
        let nghttp2 = client is NGHTTP2Client
        var state = client.loopState
        let asleep = await Poll.until {
            state = client.loopState
            return state.asleep && (!nghttp2 || state.inFlight == 1)
        }
        XCTAssertTrue(asleep, "the loop never slept with the request in flight: \(state.summary)")
        XCTAssertEqual(state.queuedRequests, 0)
        XCTAssertEqual(state.queuedJobs, 0)
        XCTAssertEqual(state.missedWakeups, 0)
        if nghttp2 {
            let next = try XCTUnwrap(state.nextTimerMilliseconds, state.summary)
            XCTAssertGreaterThan(next, 0, "the request's deadline is ahead: \(state.summary)")
            XCTAssertTrue(state.summary.contains("1 in flight"), state.summary)
        } else {
            XCTAssertNil(state.inFlight, "libcurl keeps its transfers: \(state.summary)")
        }
        XCTAssertTrue(state.summary.hasPrefix("asleep"), state.summary)
        server.held.open()
        _ = try await held.value
        await client.shutdown()
        XCTAssertTrue(client.loopState.finished)
        XCTAssertTrue(client.loopState.summary.hasPrefix("finished"), client.loopState.summary)
        await server.stop()
    }

    func testTheWarmupGateKnowsAnOriginByItsPrefixWithoutParsingEveryURL() throws {
        let gate = try XCTUnwrap(ConnectionWarmupGate(mode: .http2))
        XCTAssertEqual(gate.originKey("https://Push.Example:8443/3/device/aa"), "https://push.example:8443")
        XCTAssertEqual(gate.originKey("https://Push.Example:8443/3/device/bb"), "https://push.example:8443")
        XCTAssertEqual(gate.originKey("https://Push.Example:8443?q"), "https://push.example:8443")
        // Longer host, other port, other scheme: not the same origin.
        XCTAssertEqual(gate.originKey("https://Push.Example:84430/3/device/bb"), "https://push.example:84430")
        XCTAssertEqual(gate.originKey("https://push.example.evil/x"), "https://push.example.evil")
        XCTAssertNil(gate.originKey("http://push.example.evil/x"), "cleartext is not gated in http2 mode")
        XCTAssertNil(gate.originKey("http://push.example.evil/y"))
        XCTAssertEqual(gate.originKey("https://push.example.evil"), "https://push.example.evil")
    }
}

/// The same suite against the direct nghttp2 client (Linux test discovery sees only methods
/// a class declares, hence one forwarding line per test).
final class NGHTTP2ClientLoopExecutorTests: ClientLoopExecutorTests {
    override class var transport: HTTPTransportKind { .nghttp2 }
    override func testTasksOnTheExecutorRunOnTheLoopThreadAndGetTheirOwnAnswersInOrder() async throws { try await super.testTasksOnTheExecutorRunOnTheLoopThreadAndGetTheirOwnAnswersInOrder() }
    override func testCancellingATaskOnTheExecutorCancelsItsRequestAndTheClientCarriesOn() async throws { try await super.testCancellingATaskOnTheExecutorCancelsItsRequestAndTheClientCarriesOn() }
    override func testShutdownFromATaskOnTheExecutorReturnsAndTheTaskContinuesOffTheLoop() async throws { try await super.testShutdownFromATaskOnTheExecutorReturnsAndTheTaskContinuesOffTheLoop() }
    override func testAbortingShutdownFailsRequestsOfTasksOnTheExecutor() async throws { try await super.testAbortingShutdownFailsRequestsOfTasksOnTheExecutor() }
    override func testTheWarmupGateKnowsAnOriginByItsPrefixWithoutParsingEveryURL() throws { try super.testTheWarmupGateKnowsAnOriginByItsPrefixWithoutParsingEveryURL() }
    override func testATaskResumedFromAnotherThreadWhileTheLoopRunsAJobStillRuns() async throws { try await super.testATaskResumedFromAnotherThreadWhileTheLoopRunsAJobStillRuns() }
    override func testTheLoopStateShowsItAsleepWithARequestInFlight() async throws { try await super.testTheLoopStateShowsItAsleepWithARequestInFlight() }
}

/// One continuation, parked by a task and resumed by another thread.
private final class ParkedContinuation: Sendable {
    private let slot = Mutex<CheckedContinuation<Void, Never>?>(nil)
    func park(_ continuation: CheckedContinuation<Void, Never>) { slot.withLock { $0 = continuation } }
    var isParked: Bool { slot.withLock { $0 != nil } }
    func resume() { slot.withLock { $0.take() }?.resume() }
}

private final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .sequentiallyConsistent) }
    var isSet: Bool { value.load(ordering: .sequentiallyConsistent) }
}
