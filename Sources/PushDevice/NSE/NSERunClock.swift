import Foundation

/// Which clock the current extension run keeps (bound around a run by a driver), so that code
/// the run calls into — such as the simulator's network, which charges an image's latency to
/// the run — can wait on it.
public enum NSERunClock {
    @TaskLocal public static var current: (any NSEClock)?
}
