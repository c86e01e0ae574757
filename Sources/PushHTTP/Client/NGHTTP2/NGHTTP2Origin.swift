/// One scheme, host and port: the connection its requests share and the requests waiting for a
/// stream on it. Loop thread only.
final class NGHTTP2Origin {
    let key: String
    /// The URL bytes up to the end of the authority as first seen (`https://Host:443`), to
    /// recognise later URLs of this origin without parsing them.
    let urlPrefix: [UInt8]
    let tls: Bool
    let host: String
    let port: Int
    let authority: String
    /// The connection new streams go to; nil when none is open or opening, or the last one is
    /// going away (GOAWAY received, stream ids spent).
    var connection: NGHTTP2Connection?
    /// Waiting for a connection or a free stream, oldest first (`head` is the next one).
    /// Finished exchanges (cancelled, timed out) stay until popped and are skipped then.
    private var waiting: [NGHTTP2Exchange] = []
    private var head = 0
    /// In the loop's list of origins to hand streams out for this turn.
    var dispatchQueued = false

    init(target: NGHTTP2Target, urlPrefix: [UInt8]) {
        key = target.originKey
        self.urlPrefix = urlPrefix
        tls = target.tls
        host = target.host
        port = target.port
        authority = target.authority
    }

    var hasWaiting: Bool { head < waiting.count }

    func enqueue(_ exchange: NGHTTP2Exchange) { waiting.append(exchange) }

    /// Puts an exchange moved off a connection back at the front.
    func requeueFirst(_ exchange: NGHTTP2Exchange) {
        if head > 0 {
            head -= 1
            waiting[head] = exchange
        } else {
            waiting.insert(exchange, at: 0)
        }
    }

    /// The next waiting exchange that has not finished meanwhile.
    func popWaiting() -> NGHTTP2Exchange? {
        while head < waiting.count {
            let exchange = waiting[head]
            head += 1
            if head == waiting.count {
                waiting.removeAll(keepingCapacity: true)
                head = 0
            }
            if !exchange.isFinished { return exchange }
        }
        return nil
    }

    /// Every waiting exchange, emptying the queue (a failed connect fails them all).
    func takeWaiting() -> [NGHTTP2Exchange] {
        let taken = waiting[head...].filter { !$0.isFinished }
        waiting.removeAll(keepingCapacity: true)
        head = 0
        return taken
    }
}
