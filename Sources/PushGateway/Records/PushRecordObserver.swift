import Foundation
import PushCore
import PushHTTP
import PushStore

/// Sees every push the gateway records, as it is recorded (the web console's live log).
/// Called on the recording thread, often the server's event loop: return quickly.
public protocol PushRecordObserver: Sendable {
    /// `push.completed` builds the header map and payload text: call it only when they are
    /// needed (the console builds them when a push's detail is opened, not per push).
    func recorded(_ push: RecordedPush)
}
