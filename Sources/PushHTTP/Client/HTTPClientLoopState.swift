/// What a client's loop thread is doing right now, for a state dump (`pushlab relay`'s
/// `SIGQUIT` report, docs/relay.md "Asking a node what it waits on"). Read under the inbox's
/// lock: the queued counts are exact; the loop's own counts are as of its last sleep.
public struct HTTPClientLoopState: Sendable, Hashable {
    /// The loop sleeps (or is about to: nothing was queued when it looked) until a socket is
    /// ready, its next timer or a wakeup.
    public var asleep = false
    /// How long it has slept, when `asleep`, in milliseconds.
    public var asleepMilliseconds: Int?
    /// Queued for the loop and not yet taken by it: requests, cancellations, task jobs.
    public var queuedRequests = 0
    public var queuedCancellations = 0
    public var queuedJobs = 0
    /// As of the loop's last sleep: requests in flight (sent or waiting for a stream or a
    /// connection) and the time to its next request or connect deadline, nil when none (it
    /// then sleeps at most a second: `NGHTTP2Loop.idleSleepCap`). nghttp2 loop only; nil for libcurl's.
    public var inFlight: Int?
    public var nextTimerMilliseconds: Int?
    /// Sleeps that ran out their cap while the loop had work it had not done (queued jobs it
    /// had taken, or work queued without a wakeup): a lost wake-up the cap recovered from.
    /// Always 0 unless something is wrong; counted by the nghttp2 loop.
    public var missedWakeups = 0
    /// A stop was asked for; the loop has ended.
    public var stopping = false
    public var finished = false

    public init() {}

    /// One line, e.g. "asleep 1.2 s, queued 0 requests 0 jobs, 8 in flight, next timer in 27.9 s, missed wake-ups 0".
    public var summary: String {
        var parts: [String] = []
        if finished {
            parts.append("finished")
        } else if asleep {
            parts.append("asleep" + (asleepMilliseconds.map { " " + Self.seconds($0) } ?? ""))
        } else {
            parts.append("awake")
        }
        if stopping && !finished { parts.append("stopping") }
        parts.append("queued \(queuedRequests) requests \(queuedJobs) jobs \(queuedCancellations) cancellations")
        if let inFlight { parts.append("\(inFlight) in flight") }
        if inFlight != nil { parts.append(nextTimerMilliseconds.map { "next timer in " + Self.seconds($0) } ?? "no timer") }
        parts.append("missed wake-ups \(missedWakeups)")
        return parts.joined(separator: ", ")
    }

    static func seconds(_ milliseconds: Int) -> String {
        let tenths = (milliseconds + 50) / 100
        return "\(tenths / 10).\(tenths % 10) s"
    }
}
