import Foundation
import PushCore
import Synchronization

/// Per-device-token rate limit: APNs answers 429 TooManyRequests when one token gets too
/// many pushes. A sliding one-second window per token; `limitPerSecond == nil` disables it.
public final class TokenThrottle: Sendable {
    public let limitPerSecond: Int?
    private let time: TimeSource
    /// Token → recent send times (seconds since the reference date).
    private let recent = Mutex<[String: [TimeInterval]]>([:])

    public init(limitPerSecond: Int?, time: TimeSource = SystemTimeSource()) {
        self.limitPerSecond = limitPerSecond
        self.time = time
    }

    /// Records one push for `token`; false when it exceeds the limit (and is not recorded).
    public func admit(_ token: String) -> Bool {
        guard let limit = limitPerSecond else { return true }
        let now = time.now.timeIntervalSinceReferenceDate
        return recent.withLock { recent in
            var times = recent[token, default: []]
            times.removeAll { now - $0 >= 1 }
            guard times.count < limit else {
                recent[token] = times
                return false
            }
            times.append(now)
            recent[token] = times
            return true
        }
    }
}
