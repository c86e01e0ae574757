import PushCore

/// The offline queue's retry delay (docs/specs/retainza.md §6): 1 s after the first failed
/// flush, doubling, never above 5 minutes.
public enum RetainzaBackoff {
    public static func delay(afterFailures failures: Int) -> Double {
        guard failures > 0 else { return 0 }
        var d = RetainzaContract.backoffInitialSeconds
        for _ in 1..<min(failures, 32) {
            d *= 2
            if d >= RetainzaContract.backoffCeilingSeconds { return RetainzaContract.backoffCeilingSeconds }
        }
        return min(d, RetainzaContract.backoffCeilingSeconds)
    }
}
