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
    }
    private let state = Mutex(State())
    private let idle = AsyncGate()

    public init() {}

    public func add(deviceNamed name: String, _ phone: RetainzaPhone) { state.withLock { $0.phones[name] = phone } }
    public func phone(named name: String) -> RetainzaPhone? { state.withLock { $0.phones[name] } }
    public var arrivals: [Arrival] { state.withLock { $0.arrivals } }
    public var deviceNames: [String] { state.withLock { $0.phones.keys.sorted() } }

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
                state.withLock { s in
                    s.arrivals.append(Arrival(device: name, messageID: RetainzaSDK.messageID(in: userInfo), userInfo: userInfo, outcome: outcome))
                    s.inFlight -= 1
                    if s.inFlight == 0 { idle.open() }
                }
            }
            return true
        }
    }

    public func waitUntilIdle() async { await idle.wait() }
}
