import Foundation
import PushCore
import PushDevice
import PushHTTP
import Synchronization

/// The network between the emulated phones and the collector, with the simulator's seeded
/// faults. It sits around the real HTTP/2 client: every request that passes still travels to
/// the real collector. Decisions are keyed by delivery id (from the metric's body), never by
/// arrival order, so concurrency cannot change them.
///
/// - a metric of a push killed `before-send` is held until the extension dies (the task is
///   cancelled) and never leaves;
/// - a metric of a push killed `in-flight` is sent, stored by the collector, and its answer held
///   until the extension dies;
/// - a failing metric gets a network error (cio-4 sends once, so it is not retried).
///
/// A held request tells `holds`, so that the simulator kills its extension at that event rather
/// than at an instant a busy machine could reach before the request was made.
final class FaultyNetwork: HTTPTransport, Sendable {
    private let wrapped: any HTTPTransport
    private let fates: [String: PushFate]
    private let holds: MetricHolds
    /// Longest a held request waits for its extension to die before giving up (real time).
    private let holdLimit: Duration = .seconds(10)

    init(wrapping transport: any HTTPTransport, fates: [String: PushFate], holds: MetricHolds) {
        wrapped = transport
        self.fates = fates
        self.holds = holds
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        // An image of push n: its latency passes on the extension run's own clock.
        if let n = Self.imagePush(request.url), let fate = fates[Simulation.deliveryID(n)], let clock = NSERunClock.current {
            do { try await clock.sleep(until: clock.now() + fate.imageLatency) } catch { throw HTTPClientError.cancelled }
            return try await wrapped.send(request)
        }
        guard request.url.hasSuffix(CIOMetricRoute.track.path) || request.url.hasSuffix(CIOMetricRoute.legacyEvents.path),
              let id = Self.deliveryID(request.body), let fate = fates[id] else {
            return try await wrapped.send(request)
        }
        switch fate.killed {
        case .beforeSend?:
            try await hold(id)
            throw HTTPClientError.cancelled
        case .inFlight?:
            let response = try await wrapped.send(request)
            try await hold(id)
            return response
        case .mixed?, nil:
            if fate.offline { throw HTTPClientError.connectFailed("the phone is offline (pushlab simulate --offline)") }
            if fate.metricFails { throw HTTPClientError.connectFailed("simulated network failure (pushlab simulate)") }
            return try await wrapped.send(request)
        }
    }

    /// Waits until the calling task is cancelled (the extension was killed).
    private func hold(_ id: String) async throws {
        holds.reach(id)
        do { try await Task.sleep(for: holdLimit) } catch { throw HTTPClientError.cancelled }
    }

    /// The push number of a simulated image URL (`…/images/…?push=N`).
    static func imagePush(_ url: String) -> Int? {
        guard url.contains("/images/"), let q = url.firstIndex(of: "?") else { return nil }
        return Simulation.pushNumber(String(url[url.index(after: q)...]))
    }

    /// `deliveryId` (CDP `/v1/track`) or `delivery_id` (legacy `/push/events`).
    static func deliveryID(_ body: [UInt8]) -> String? {
        guard let root = try? JSONDocument.parse(body).root else { return nil }
        return root["properties"]?["deliveryId"]?.stringValue ?? root["delivery_id"]?.stringValue
    }
}

/// Delivery ids whose metric request the faulty network holds: `wait` returns once the request
/// of that id is held (or when the waiting task is cancelled).
final class MetricHolds: Sendable {
    private struct State {
        var reached: Set<String> = []
        var cancelled: Set<String> = []
        var waiters: [String: CheckedContinuation<Void, Never>] = [:]
    }
    private let state = Mutex(State())

    func reach(_ id: String) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.reached.insert(id)
            return state.waiters.removeValue(forKey: id)
        }
        waiter?.resume()
    }

    func wait(_ id: String) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.reached.contains(id) || state.cancelled.remove(id) != nil { return true }
                    state.waiters[id] = c
                    return false
                }
                if now { c.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let w = state.waiters.removeValue(forKey: id) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return w
            }
            waiter?.resume()
        }
    }
}
