/// Where a retry waits. The real one sleeps; tests record the delays instead of waiting.
public protocol RetrySleeper: Sendable {
    func sleep(for duration: Duration) async throws
}

/// Sleeps on the Swift concurrency clock.
public struct TaskSleeper: RetrySleeper {
    public init() {}
    public func sleep(for duration: Duration) async throws { try await Task.sleep(for: duration) }
}
