import Foundation
import PushCore
import PushHTTP
import PushSend

/// The send history: opened unless --no-history, one row per push.
extension SendSupport {
    /// The history store, or nil with `--no-history`. A history that cannot be opened is a
    /// warning, never a reason not to send.
    static func openHistory(_ args: ParsedArguments) throws -> SendHistoryStore? {
        if args[noHistory] { return nil }
        let path = try args[history]
        do {
            return try SendHistoryStore(path: path)
        } catch {
            printError("pushlab: warning: cannot open the send history at \(path): \(error) (use --history PATH or --no-history)")
            return nil
        }
    }

    static func record(_ report: DeliveryReport, in history: SendHistoryStore?, endpoint: String) {
        guard let history else { return }
        do { try history.record([report], endpoint: endpoint) } catch {
            printError("pushlab: warning: could not record the send in \(history.path): \(error)")
        }
    }
}
