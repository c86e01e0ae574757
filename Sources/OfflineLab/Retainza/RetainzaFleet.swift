import Foundation
import PushCore
import PushDevice
import PushGateway
import Synchronization

/// The lab's Retainza iPhones (docs/retainza.md): pushes the gateway accepted for one of them
/// (through FCM, or APNs) are handed to its `RetainzaPhone` in arrival order; every arrival is
/// kept for reports and the console.
public final class RetainzaFleet: Sendable {
    public struct Arrival: Sendable {
        public var device: String
        /// The gateway's id of the push (the FCM message name).
        public var pushID: String
        public var receivedAt: Date
        /// The Retainza message id (`rz_message_id`), when the push is Retainza's.
        public var messageID: String?
        public var userInfo: JSONValue
        public var outcome: RetainzaArrival
    }

    private struct State {
        var phones: [String: RetainzaPhone] = [:]
        var arrivals: [Arrival] = []
        var inFlight = 0
        /// Each phone's pushes run one after the other, in the order the gateway accepted them.
        var tails: [String: Task<Void, Never>] = [:]
        var observer: (@Sendable (Arrival, RetainzaPhone) async -> Void)?
    }
    private let state = Mutex(State())
    private let idle = AsyncGate()

    public init() {}

    /// Sees every arrival once the phone handled it (`demo --console` feeds its device view).
    public func setObserver(_ observer: @escaping @Sendable (Arrival, RetainzaPhone) async -> Void) {
        state.withLock { $0.observer = observer }
    }

    public func add(deviceNamed name: String, _ phone: RetainzaPhone) { state.withLock { $0.phones[name] = phone } }
    public func phone(named name: String) -> RetainzaPhone? { state.withLock { $0.phones[name] } }
    public var arrivals: [Arrival] { state.withLock { $0.arrivals } }

    /// Takes the push when it is for a Retainza phone; false leaves it to the other fleets.
    public func deliver(_ push: AcceptedPush) -> Bool {
        guard let name = push.device?.name else { return false }
        let userInfo = (try? JSONDocument.parse(push.payload))?.root ?? .null
        return state.withLock { s -> Bool in
            guard let phone = s.phones[name] else { return false }
            s.inFlight += 1
            idle.close()
            let previous = s.tails[name]
            s.tails[name] = Task { [self] in
                await previous?.value
                let outcome = await phone.receive(userInfo)
                let arrival = Arrival(device: name, pushID: push.messageID, receivedAt: push.receivedAt,
                                      messageID: RetainzaSDK.messageID(in: userInfo), userInfo: userInfo, outcome: outcome)
                let observer = state.withLock { s in
                    s.arrivals.append(arrival)
                    return s.observer
                }
                await observer?(arrival, phone)
                state.withLock { s in
                    s.inFlight -= 1
                    if s.inFlight == 0 { idle.open() }
                }
            }
            return true
        }
    }

    public func waitUntilIdle() async { await idle.wait() }
}
