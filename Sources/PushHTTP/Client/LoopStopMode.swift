/// How the loop should stop.
enum LoopStopMode: Sendable, Equatable {
    /// Let transfers already handed to libcurl finish (each is bounded by its timeout).
    case finishInFlight
    /// Remove every transfer at once; their callers get `HTTPClientError.shutDown`.
    case abortInFlight
}
