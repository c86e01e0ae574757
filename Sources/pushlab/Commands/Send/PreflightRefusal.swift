import Foundation
import PushAuth
import PushCore
import PushHTTP
import PushSend

/// The payload or message failed pre-flight validation: nothing was sent. Exit 1, as a failed
/// `pushlab validate` (architecture.md: 1 = the push/validation failed).
struct PreflightRefusal: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
