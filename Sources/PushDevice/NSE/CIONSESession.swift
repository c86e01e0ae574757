import Foundation

/// The URLSession the Customer.io SDK's NSE uses for the image download and the delivered
/// metric (docs/specs/device-side.md §2–3): fixed timeouts of its own, not tied to iOS's
/// ~30 s budget. A download is timed from its own start, which comes after the extension's,
/// so the budget's expiry (`serviceExtensionTimeWillExpire`) always comes first for a budget
/// of 30 s or less, and cancels whatever is still in flight.
public enum CIONSESession {
    /// `timeoutIntervalForResource`: the whole transfer, redirects included.
    public static let resourceTimeout: Duration = .seconds(30)
}
