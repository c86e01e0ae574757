import CPushLab

/// One request on its way through `NGHTTP2Loop`: queued on its origin, then a stream on a
/// connection, until its caller is answered. Loop thread only. nghttp2's stream user data
/// points at it, unretained (the loop's `live` list owns it until it finishes).
final class NGHTTP2Exchange {
    let submission: TransferSubmission
    /// `:path` of the request.
    let path: String
    let origin: NGHTTP2Origin
    /// CLOCK_MONOTONIC nanoseconds when the loop took the request, and its deadline.
    let startNanos: UInt64
    let deadlineNanos: UInt64
    let bodyLimit: Int

    /// Its place in the loop's `live` list, -1 once finished.
    var liveIndex = -1
    /// The connection carrying it and its stream id, while it has one.
    var connection: NGHTTP2Connection?
    var streamID: Int32 = 0
    /// Bytes of the request body handed to nghttp2 so far.
    var bodyOffset = 0
    /// HEADERS went out on the wire: the server may have acted on it, so a lost connection
    /// fails it rather than sending it again.
    var headersSent = false
    /// nghttp2 dropped its HEADERS unsent (GOAWAY arrived first): safe to send again.
    var notSent = false
    /// The response ended (END_STREAM received).
    var complete = false
    var failure: HTTPClientError?
    /// Times it was moved to another connection (refused, unsent); bounded.
    var attempts = 0

    var status = 0
    var headers: [HTTPHeader] = []
    var body: [UInt8] = []
    var firstByteNanos: UInt64 = 0
    /// Connect and TLS time, for the exchanges that waited for their connection to open.
    var connectNanos: UInt64 = 0
    var tlsNanos: UInt64 = 0

    init(submission: TransferSubmission, path: String, origin: NGHTTP2Origin, startNanos: UInt64) {
        self.submission = submission
        self.path = path
        self.origin = origin
        self.startNanos = startNanos
        let timeout = submission.timeout.components
        let nanos = UInt64(max(0, timeout.seconds)) &* 1_000_000_000 &+ UInt64(max(0, timeout.attoseconds / 1_000_000_000))
        deadlineNanos = startNanos &+ nanos
        bodyLimit = submission.request.maxResponseBodyBytes ?? Int.max
    }

    var isFinished: Bool { liveIndex < 0 }

    /// Forgets the stream so it can be sent again on another connection.
    func detachFromStream() {
        connection = nil
        streamID = 0
        bodyOffset = 0
        headersSent = false
        notSent = false
        complete = false
        status = 0
        headers.removeAll()
        body.removeAll()
        attempts += 1
    }

    // MARK: nghttp2 callbacks (inside nghttp2_session_mem_recv)

    func beginHeaders() {
        // A final response after a 1xx replaces the informational one's fields.
        if status >= 100 && status < 200 {
            status = 0
            headers.removeAll(keepingCapacity: true)
        }
    }

    /// False when the response is too large (the caller resets the stream).
    func header(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, now: () -> UInt64) -> Bool {
        if name.count == 7, name[0] == UInt8(ascii: ":"), name[1] == UInt8(ascii: "s") {  // ":status"
            var code = 0
            for byte in value { code = code * 10 + Int(byte &- UInt8(ascii: "0")) }
            status = code
            if firstByteNanos == 0 { firstByteNanos = now() }
            return true
        }
        if name.first == UInt8(ascii: ":") { return true }
        let fieldName = String(decoding: name, as: UTF8.self)
        let fieldValue = String(decoding: value, as: UTF8.self)
        if name.count == 14, fieldName == "content-length", let length = Int(fieldValue) {
            // Refuse a body already known to be too big before any of it arrives.
            if length > bodyLimit {
                failure = .responseTooLarge(limit: bodyLimit)
                return false
            }
            body.reserveCapacity(length)
        }
        headers.append(HTTPHeader(fieldName, fieldValue))
        return true
    }

    /// False when the body went over its limit.
    func data(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard body.count + bytes.count <= bodyLimit else {
            failure = .responseTooLarge(limit: bodyLimit)
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    /// Copies the next piece of the request body into nghttp2's buffer.
    func readBody(into buffer: UnsafeMutablePointer<UInt8>, length: Int, flags: UnsafeMutablePointer<UInt32>) -> Int {
        let count = submission.request.body.withUnsafeBufferPointer { source -> Int in
            let count = min(length, source.count - bodyOffset)
            if count > 0 { buffer.update(from: source.baseAddress! + bodyOffset, count: count) }
            return count
        }
        bodyOffset += count
        if bodyOffset >= submission.request.body.count { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
        return count
    }

    func response(endNanos: UInt64) -> HTTPResponse {
        let timings = HTTPTimings(connect: .nanoseconds(Int64(connectNanos)), tlsHandshake: .nanoseconds(Int64(tlsNanos)),
                                  firstByte: .nanoseconds(Int64(firstByteNanos > startNanos ? firstByteNanos - startNanos : 0)),
                                  total: .nanoseconds(Int64(endNanos > startNanos ? endNanos - startNanos : 1)))
        return HTTPResponse(status: status, headers: HTTPHeaders(headers), body: body, version: .http2,
                            timings: timings, effectiveURL: submission.request.url)
    }
}
