import Foundation
import PushCore
import PushHTTP

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
final class FaultyNetwork: HTTPTransport, @unchecked Sendable {
    private let wrapped: any HTTPTransport
    private let fates: [String: PushFate]
    /// Longest a held request waits for its extension to die before giving up (real time).
    private let holdLimit: Duration = .seconds(10)

    init(wrapping transport: any HTTPTransport, fates: [String: PushFate]) {
        wrapped = transport
        self.fates = fates
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard request.url.hasSuffix("/v1/track") || request.url.hasSuffix("/push/events"),
              let id = Self.deliveryID(request.body), let fate = fates[id] else {
            return try await wrapped.send(request)
        }
        switch fate.killed {
        case .beforeSend?:
            try await hold()
            throw HTTPClientError.cancelled
        case .inFlight?:
            let response = try await wrapped.send(request)
            try await hold()
            return response
        case .mixed?, nil:
            if fate.metricFails { throw HTTPClientError.connectFailed("simulated network failure (pushlab simulate)") }
            return try await wrapped.send(request)
        }
    }

    /// Waits until the calling task is cancelled (the extension was killed).
    private func hold() async throws {
        do { try await Task.sleep(for: holdLimit) } catch { throw HTTPClientError.cancelled }
    }

    /// `deliveryId` (CDP `/v1/track`) or `delivery_id` (legacy `/push/events`).
    static func deliveryID(_ body: [UInt8]) -> String? {
        guard let root = try? JSONDocument.parse(body).root else { return nil }
        return root["properties"]?["deliveryId"]?.stringValue ?? root["delivery_id"]?.stringValue
    }
}
