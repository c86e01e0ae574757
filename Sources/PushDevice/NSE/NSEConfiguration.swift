import Foundation

/// How one emulated extension run is set up.
public struct NSEConfiguration: Sendable {
    public var profile: AppProfile
    /// iOS's time budget (docs/specs/device-side.md §2: about 30 s), in emulated time.
    public var budget: Duration
    /// The extension process dies at this emulated instant after the push arrived (`--kill-at`).
    public var killAt: Duration?
    /// The App Group store the extension writes its pending row to.
    public var store: any PendingMetricStore
    /// `<tmp>`: images are saved under `<tmp>/cio_sdk/`.
    public var temporaryDirectory: URL
    public var maxRedirects: Int
    /// Told when the image or the metric work has settled (before the lifecycle sees it), so a
    /// driver on an emulated clock can move time on only after the work it waits for is done.
    public var onSettled: (@Sendable (NSEWork) -> Void)?
    /// The extension process dies when this returns (an event rather than an instant: the
    /// simulator kills an extension once its metric request is held, whatever the machine's
    /// load). It must return when its task is cancelled.
    public var killWhen: (@Sendable () async -> Void)?

    public init(profile: AppProfile, budget: Duration = .seconds(30), killAt: Duration? = nil,
                store: any PendingMetricStore = DisabledPendingMetricStore(reason: "no App Group container"),
                temporaryDirectory: URL = FileManager.default.temporaryDirectory, maxRedirects: Int = 10) {
        self.profile = profile
        self.budget = budget
        self.killAt = killAt
        self.store = store
        self.temporaryDirectory = temporaryDirectory
        self.maxRedirects = maxRedirects
    }

    /// pushlab's improved mode delivers this long before iOS's expiry, so composed content never
    /// races the deadline: 2 s, or a tenth of a short budget.
    public var improvedReserve: Duration { min(.seconds(2), budget / 10) }
}
