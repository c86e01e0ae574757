import Foundation
import PushGateway
import PushMetrics
import PushRelay

/// The web console (`/console`): the push log fed by the gateway (and later the relay), the
/// virtual iPhone's notifications, the send form and the collector's report. It is also the
/// gateway's delivery sink, so the phone it gets once the servers run sees every accepted push.
public final class Console: PushDeliverySink, @unchecked Sendable {
    public let configuration: ConsoleConfiguration
    public let log: ConsoleLog
    private let next: (any PushDeliverySink)?
    // `phone`, `sender` and `metrics` are protected by `lock`: they are attached once the
    // servers are bound (their URLs are only known then).
    private var phone: VirtualPhone?
    private var notebook: DeviceNotebook?
    private var androidPhones: VirtualAndroidPhones?
    /// In the order attached; at most one per `target.id`.
    private var senders: [ConsoleSender] = []
    private var metrics: (@Sendable () throws -> MetricsReport)?
    private var relay: Relay?
    private let lock = NSLock()

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
        lock.withLock {
            self.phone = phone
            notebook = phone.notebook
        }
    }
    /// The virtual Android phones that handle FCM messages for the gateway's `android` devices.
    public func attach(androidPhones: VirtualAndroidPhones) { lock.withLock { self.androidPhones = androidPhones } }
    /// What the device view shows when the devices run elsewhere (`demo --console`: the lab's fleet).
    public func attach(devices: DeviceNotebook) { lock.withLock { notebook = devices } }
    /// A sender for the send form; one with the same `target.id` is replaced.
    public func attach(sender: ConsoleSender) {
        lock.withLock {
            if let i = senders.firstIndex(where: { $0.target.id == sender.target.id }) { senders[i] = sender } else { senders.append(sender) }
        }
    }
    public func attach(metrics: @escaping @Sendable () throws -> MetricsReport) { lock.withLock { self.metrics = metrics } }
    /// The relay this console runs on (`relay --console`): its send form, devices and metrics.
    public func attach(relay: Relay) { lock.withLock { self.relay = relay } }

    var attachedPhone: VirtualPhone? { lock.withLock { phone } }
    var attachedNotebook: DeviceNotebook? { lock.withLock { notebook } }
    var attachedAndroidPhones: VirtualAndroidPhones? { lock.withLock { androidPhones } }
    /// The sender for this lab's gateway.
    var attachedSender: ConsoleSender? { attachedSender(id: "lab") }
    func attachedSender(id: String) -> ConsoleSender? { lock.withLock { senders.first { $0.target.id == id } } }
    var attachedTargets: [ConsoleSender.Target] { lock.withLock { senders.map(\.target) } }
    var attachedMetrics: (@Sendable () throws -> MetricsReport)? { lock.withLock { metrics } }
    var attachedRelay: Relay? { lock.withLock { relay } }

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
