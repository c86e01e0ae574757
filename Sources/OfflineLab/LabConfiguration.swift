import Foundation
import PushAuth
import PushCore
import PushDevice
import PushGateway
import PushHTTP
import PushMetrics
import PushRelay
import PushSend

/// Where the lab finds its files and keeps its state.
public struct LabConfiguration: Sendable {
    /// certs/: the dev CA, the localhost certificate, the APNs key, the service account.
    public var certsDirectory: String
    /// payloads/assets/: the images the image server serves.
    public var assetsDirectory: String
    /// Fresh per run: SQLite files, App Group containers, the NSE's tmp.
    public var workDirectory: URL
    /// The NSE budget and how fast emulated time runs (2 = twice as fast as the wall clock).
    public var budget: Duration = .seconds(30)
    public var timeScale: Double = 1
    public var gatewayFaults: FaultPlan = .none
    public var collectorFaults: FaultPlan = .none
    /// Image latency per request, from its query string; nil: none.
    public var imageLatency: (@Sendable (String?) -> Duration?)?
    /// Wraps the network the devices see (the NSE's image and metric requests, the app's
    /// uploads): the simulator's seeded network faults live there.
    public var deviceNetwork: (@Sendable (any HTTPTransport) -> any HTTPTransport)?
    /// The CDP API key the collector accepts (and the app profiles carry).
    public var cdpAPIKey = "pushlab-demo-cdp-key"
    /// Sees every push the gateway records (`pushlab demo --console` feeds its log with it).
    public var recordObserver: (any PushRecordObserver)?
    /// Sees the demo relay's pushes and results (`pushlab demo --console` logs them too).
    public var relayObserver: (any RelayObserver)?
    /// More routes on the gateway's Google host (the console's), and a cleartext listener
    /// beside its TLS one so a browser needs no certificate.
    public var googleRoutes: (@Sendable (inout Router) -> Void)?

    public init(certsDirectory: String, assetsDirectory: String, workDirectory: URL) {
        self.certsDirectory = certsDirectory
        self.assetsDirectory = assetsDirectory
        self.workDirectory = workDirectory
    }
}
