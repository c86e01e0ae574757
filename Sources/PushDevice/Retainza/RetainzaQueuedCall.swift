import Foundation
import PushCore

/// One call waiting in the offline queue: its route, its body (with the call-time timestamp
/// already in it, §6) and when it was made.
public struct RetainzaQueuedCall: Sendable, Equatable {
    public var sequence: Int
    public var route: RetainzaRoute
    public var body: JSONValue
    public var calledAt: Date

    public init(sequence: Int, route: RetainzaRoute, body: JSONValue, calledAt: Date) {
        self.sequence = sequence
        self.route = route
        self.body = body
        self.calledAt = calledAt
    }

    var json: JSONValue {
        .object(JSONObject([
            JSONMember(key: "seq", value: .number(JSONNumber(sequence))),
            JSONMember(key: "route", value: .string(route.rawValue)),
            JSONMember(key: "calledAt", value: .number(JSONNumber(calledAt.timeIntervalSince1970))),
            JSONMember(key: "body", value: body),
        ]))
    }

    init?(json: JSONValue) {
        guard let o = json.objectValue, let seq = o["seq"]?.numberValue?.intValue,
              let route = o["route"]?.stringValue.flatMap(RetainzaRoute.init(rawValue:)), route.isQueueable,
              let at = o["calledAt"]?.numberValue?.doubleValue, let body = o["body"] else { return nil }
        self.init(sequence: seq, route: route, body: body, calledAt: Date(timeIntervalSince1970: at))
    }
}

/// The offline queue (docs/specs/retainza.md §6): calls in call order, at most `capacity`
/// (the oldest dropped to make room), kept in `engage.queue.v1` of the storage.
public struct RetainzaOfflineQueue: Sendable {
    public private(set) var calls: [RetainzaQueuedCall]
    public let capacity: Int
    /// Calls dropped because the queue was full, since start.
    public private(set) var droppedByCap = 0
    private var nextSequence: Int

    public init(capacity: Int, storage: any RetainzaStorage) {
        self.capacity = capacity
        var loaded: [RetainzaQueuedCall] = []
        if let list = storage.value(.queue)?.arrayValue {
            loaded = list.elements.compactMap(RetainzaQueuedCall.init(json:))
        }
        calls = Array(loaded.suffix(capacity))
        nextSequence = (loaded.map(\.sequence).max() ?? 0) + 1
    }

    public var count: Int { calls.count }
    public var isEmpty: Bool { calls.isEmpty }

    /// Appends a call; returns the call dropped to make room, if any.
    @discardableResult
    public mutating func append(route: RetainzaRoute, body: JSONValue, calledAt: Date) -> RetainzaQueuedCall? {
        precondition(route.isQueueable, "\(route) is never queued (docs/specs/retainza.md §6)")
        calls.append(RetainzaQueuedCall(sequence: nextSequence, route: route, body: body, calledAt: calledAt))
        nextSequence += 1
        guard calls.count > capacity else { return nil }
        droppedByCap += 1
        return calls.removeFirst()
    }

    public mutating func removeFirst() { if !calls.isEmpty { calls.removeFirst() } }
    public mutating func removeAll() { calls.removeAll() }

    func save(to storage: any RetainzaStorage) {
        storage.set(.array(JSONArray(calls.map(\.json))), .queue)
    }
}
