import Foundation

/// The live progress line of a bulk send on a terminal: sent, ok, failed, rate, ETA.
/// Redrawn at most every `interval`, written through `write` (stderr in the CLI).
public final class BulkProgress {
    private let write: (String) -> Void
    private let interval: Duration
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    private var lastDraw: ContinuousClock.Instant

    public init(interval: Duration = .milliseconds(200), write: @escaping (String) -> Void) {
        self.write = write
        self.interval = interval
        started = clock.now
        lastDraw = started
    }

    func update(_ summary: BulkSummary, fraction: Double?) {
        let now = clock.now
        guard now - lastDraw >= interval else { return }
        lastDraw = now
        write("\r\u{1B}[2K" + Self.line(summary, elapsed: now - started, fraction: fraction))
    }

    func finish(_ summary: BulkSummary) {
        write("\r\u{1B}[2K" + Self.line(summary, elapsed: summary.elapsed, fraction: 1) + "\n")
    }

    /// The share of all pushes answered: the input read so far (`consumed`, by bytes) scaled by
    /// the share of the tokens read that have an answer — the bytes alone reach 100% while the
    /// last `concurrency` pushes are still in flight.
    public static func fractionDone(consumed: Double?, read: UInt64, done: Int) -> Double? {
        guard let consumed, read > 0 else { return consumed.map { _ in 0 } }
        return consumed * min(1, Double(done) / Double(read))
    }

    /// One progress line, e.g. `[########----] 61% sent 6100 ok 6090 failed 10 5021/s ETA 0:01`.
    public static func line(_ s: BulkSummary, elapsed: Duration, fraction: Double?) -> String {
        let seconds = elapsed.inSeconds
        let rate = seconds > 0 ? Double(s.total) / seconds : 0
        var out = ""
        if let fraction {
            let width = 20
            let filled = Int((fraction * Double(width)).rounded(.down))
            out += "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
            // Rounded down: 99.9% is not done, and only the end shows 100%.
            out += String(format: "%3d%% ", Int((fraction * 100).rounded(.down)))
        }
        out += "sent \(s.total)  ok \(s.accepted)  failed \(s.notAccepted)  \(Int(rate.rounded()))/s"
        if let fraction, fraction > 0, fraction < 1 {
            let remaining = seconds / fraction - seconds
            out += "  ETA " + clockText(remaining)
        } else {
            out += "  " + clockText(seconds)
        }
        return out
    }

    static func clockText(_ seconds: Double) -> String {
        let total = Int(max(0, seconds).rounded())
        let h = total / 3600, m = (total % 3600) / 60, s = total % 60
        return h > 0 ? String(format: "%d:%02d:%02d", h, m, s) : String(format: "%d:%02d", m, s)
    }
}
