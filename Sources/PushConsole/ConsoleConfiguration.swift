import PushCore

/// How the console runs. Every default is what `pushlab serve --console` uses.
public struct ConsoleConfiguration: Sendable {
    /// Serve `/console` to peers that are not loopback too (`--console-remote`); off, they get 403.
    public var allowRemote = false
    /// Most pushes a second the virtual iPhone runs its extension for (`--console-phone-rate`);
    /// the rest show in the device view as not simulated.
    public var phoneRunsPerSecond = 100
    /// The clock of that rate (the wall clock; tests give a `ManualTimeSource`).
    public var phoneTime: any TimeSource = SystemTimeSource()
    /// The token every request must carry (`--console-remote` sets one); nil: none asked.
    public var access: ConsoleAccess?
    /// Rows per page of the log.
    public var pageSize = 100
    /// Most pushes one live-stream event carries.
    public var eventBatchLimit = 5_000
    /// How long a live-stream request waits for a push before it ends (the browser reconnects).
    public var eventWait: Duration = .seconds(15)
    /// `simulate --chart` SVG to show on the metrics tab.
    public var simulateChart: String?

    public init() {}
}
