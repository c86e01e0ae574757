import Foundation

/// Waiting for an event in tests: check a condition until it holds or a deadline passes. Tests use
/// this instead of fixed sleeps, so a slow (loaded) machine only waits longer, never fails, and a
/// fast one does not wait at all. The deadline is a generous bound for a hung condition, never a
/// timing assertion.
public enum Poll {
    /// Checks `condition` every `interval` until it holds (true) or `timeout` seconds pass (false).
    public static func until(timeout: TimeInterval = 20, interval: Duration = .milliseconds(5),
                             _ condition: () async throws -> Bool) async rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while try await !condition() {
            if Date() >= deadline { return false }
            try? await Task.sleep(for: interval)
        }
        return true
    }

    /// The blocking form, for code outside async contexts.
    public static func blocking(timeout: TimeInterval = 20, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while try !condition() {
            if Date() >= deadline { return false }
            usleep(5_000)
        }
        return true
    }
}
