import Foundation

/// `ConnectionControl` for handlers: every call becomes a job on the loop thread that finds the
/// connection by id (it may have closed meanwhile; then the call does nothing).
final class LoopConnectionControl: ConnectionControl {
    private let loop: ServerEventLoop
    private let connectionID: UInt64

    init(loop: ServerEventLoop, connectionID: UInt64) {
        self.loop = loop
        self.connectionID = connectionID
    }

    func updateSettings(_ settings: HTTP2Settings) {
        let id = connectionID
        loop.execute { $0.connection(id)?.updateSettings(settings) }
    }

    func goAway(errorCode: UInt32, debugData: [UInt8]) {
        let id = connectionID
        loop.execute { $0.connection(id)?.goAway(errorCode: errorCode, debugData: debugData) }
    }

    func close() {
        let id = connectionID
        loop.execute { $0.connection(id)?.closeNow() }
    }
}
