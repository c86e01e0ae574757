import Foundation
import PushCore
import PushHTTP

/// How the gateway emulator runs. Every default is what `pushlab serve` uses.
public struct GatewayConfiguration: Sendable {
    /// Address every listener binds; loopback unless told otherwise.
    public var host = "127.0.0.1"
    /// The APNs host: TLS (h2) port and cleartext (h2c) port; 0 picks a free port, nil disables.
    public var apnsPort: Int? = 0
    public var apnsCleartextPort: Int? = nil
    /// The Google host: OAuth `/token`, FCM `/v1/projects/…`, and the `/admin` routes.
    public var fcmPort: Int? = 0
    public var fcmCleartextPort: Int? = nil
    public var certificateFile: String
    public var privateKeyFile: String
    /// Which APNs environment this gateway plays (sandbox answers carry `apns-unique-id`).
    public var environment: TrustedAPNsKey.Restriction = .sandboxOnly
    /// MAX_CONCURRENT_STREAMS once a valid token was accepted (docs/specs/apns.md: observed 500).
    public var authenticatedStreamLimit: UInt32 = 500
    /// Pushes per second one device token may receive before 429 TooManyRequests; nil: no limit.
    public var perTokenLimit: Int? = nil
    /// Where provider-token changes are counted for 429 TooManyProviderTokenUpdates.
    public var providerTokenUpdates: ProviderTokenUpdateScope = .connection
    /// Close idle APNs connections with GOAWAY `{"reason":"IdleTimeout"}`; nil: never.
    public var idleTimeout: Duration? = nil
    /// SQLite file for the push records; nil keeps the newest 10,000 in memory.
    public var recordsPath: String? = nil
    public var faultPlan: FaultPlan = .none
    /// Sees every recorded push as it happens (`pushlab serve --console`); nil: nobody.
    public var recordObserver: (any PushRecordObserver)? = nil
    /// Event-loop threads of each host (`HTTPServerConfiguration.eventLoops`).
    public var eventLoops = 1
    /// CA file of the APNs provider certificates the APNs host accepts (certificate-based
    /// authentication, docs/gateway.md "Keys"); nil: provider tokens only.
    public var apnsClientCertificateCAFile: String? = nil

    public init(certificateFile: String, privateKeyFile: String) {
        self.certificateFile = certificateFile
        self.privateKeyFile = privateKeyFile
    }
}
