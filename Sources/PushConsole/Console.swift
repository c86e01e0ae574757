import Foundation
import PushGateway
import PushMetrics
import PushRelay
import Synchronization

/// The web console (`/console`): the push log fed by the gateway (and later the relay), the
/// virtual iPhone's notifications, the send form and the collector's report. It is also the
/// gateway's delivery sink, so the phone it gets once the servers run sees every accepted push.
public final class Console: PushDeliverySink, Sendable {
    public let configuration: ConsoleConfiguration
    public let log: ConsoleLog
    private let next: (any PushDeliverySink)?
    /// What is attached once the servers are bound (their URLs are only known then).
    private let attached = Mutex(Attached())

    private struct Attached {
        var phone: VirtualPhone?
        var notebook: DeviceNotebook?
        var androidPhones: VirtualAndroidPhones?
        /// In the order attached; at most one per `target.id`.
        var senders: [ConsoleSender] = []
        var metrics: (@Sendable () throws -> MetricsReport)?
        var relay: Relay?
    }

    /// `next` also gets every accepted push (e.g. `pushlab serve`'s one line per push).
    public init(configuration: ConsoleConfiguration = ConsoleConfiguration(), log: ConsoleLog = ConsoleLog(),
                next: (any PushDeliverySink)? = nil) {
        self.configuration = configuration
        self.log = log
        self.next = next
    }

    /// The gateway's record observer that feeds this console's log.
    public var gatewayFeed: GatewayLogFeed { GatewayLogFeed(log: log) }

    /// The virtual iPhone that runs every push the console is handed (`serve --console`).
    public func attach(phone: VirtualPhone) {
        attached.withLock {
            $0.phone = phone
            $0.notebook = phone.notebook
        }
    }
    /// The virtual Android phones that handle FCM messages for the gateway's `android` devices.
    public func attach(androidPhones: VirtualAndroidPhones) { attached.withLock { $0.androidPhones = androidPhones } }
    /// What the device view shows when the devices run elsewhere (`demo --console`: the lab's fleet).
    public func attach(devices: DeviceNotebook) { attached.withLock { $0.notebook = devices } }
    /// A sender for the send form; one with the same `target.id` is replaced.
    public func attach(sender: ConsoleSender) {
        attached.withLock { attached in
            if let i = attached.senders.firstIndex(where: { $0.target.id == sender.target.id }) {
                attached.senders[i] = sender
            } else {
                attached.senders.append(sender)
            }
        }
    }
    public func attach(metrics: @escaping @Sendable () throws -> MetricsReport) { attached.withLock { $0.metrics = metrics } }
    /// The relay this console runs on (`relay --console`): its send form, devices and metrics.
    public func attach(relay: Relay) { attached.withLock { $0.relay = relay } }

    var attachedPhone: VirtualPhone? { attached.withLock { $0.phone } }
    public var attachedNotebook: DeviceNotebook? { attached.withLock { $0.notebook } }
    var attachedAndroidPhones: VirtualAndroidPhones? { attached.withLock { $0.androidPhones } }
    /// The sender for this lab's gateway.
    var attachedSender: ConsoleSender? { attachedSender(id: "lab") }
    func attachedSender(id: String) -> ConsoleSender? { attached.withLock { $0.senders.first { $0.target.id == id } } }
    var attachedTargets: [ConsoleSender.Target] { attached.withLock { $0.senders.map(\.target) } }
    var attachedMetrics: (@Sendable () throws -> MetricsReport)? { attached.withLock { $0.metrics } }
    var attachedRelay: Relay? { attached.withLock { $0.relay } }

    public func deliver(_ push: AcceptedPush) {
        next?.deliver(push)
        attachedPhone?.deliver(push)
    }

    public func deliverToAndroid(_ push: AcceptedPush) {
        next?.deliverToAndroid(push)
        attachedAndroidPhones?.deliver(push)
    }

    /// Ends the live streams now, so the server's graceful stop does not wait for them.
    public func stop() { log.close() }
}
