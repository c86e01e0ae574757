import CPushLab

/// The nghttp2 callback table, built once per server and copied by every session.
final class HTTP2Callbacks {
    let callbacks: OpaquePointer

    init() {
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        self.callbacks = callbacks!
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, context in
            HTTP2Session.with(context) { $0.beginHeaders(frame!) }
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameLength, value, valueLength, _, context in
            HTTP2Session.with(context) { $0.header(frame!, name!, nameLength, value!, valueLength) }
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, streamID, data, length, context in
            HTTP2Session.with(context) { $0.dataChunk(streamID, data!, length) }
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, context in
            HTTP2Session.with(context) { $0.frameReceived(frame!) }
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, _, context in
            HTTP2Session.with(context) { $0.streamClosed(streamID) }
        }
    }

    deinit { nghttp2_session_callbacks_del(callbacks) }
}

/// The HTTP/2 side of a connection: an nghttp2 server session fed from the bufferevent's input
/// and written to its output. Loop thread only; nghttp2 calls back synchronously from
/// `receive` and `flush`, with `self` as user data (unretained: the connection owns us and
/// deletes the session before letting go).
final class HTTP2Session {
    enum FlushResult { case open, finished, failed }

    // unowned(unsafe): the connection owns this session and deletes it before going away;
    // a checked `unowned` costs an atomic retain/release per nghttp2 callback.
    unowned(unsafe) let connection: ServerConnection
    private var session: OpaquePointer?
    /// Copied out of the configuration once: read on every header and DATA chunk.
    private let maxHeaderListBytes: Int
    private let maxRequestBodyBytes: Int
    private let dispatcher: RequestDispatcher
    private let context: ConnectionContext
    /// Owns the streams; nghttp2's stream user data points at the same objects, unretained.
    @exclusivity(unchecked) private var streams: [Int32: HTTP2Stream] = [:]
    /// Closed streams kept for reuse (see `HTTP2Stream.reuse`), up to `pooledStreams`.
    @exclusivity(unchecked) private var freeStreams: [HTTP2Stream] = []
    /// The stream whose header block is being received.
    @exclusivity(unchecked) private var currentStream: HTTP2Stream?
    /// The fields and path of the last complete request. Clients repeat most
    /// fields on every request of a connection (an APNs provider token alone is ~200 bytes), so
    /// a field whose bytes match the one at the same position last time reuses its strings:
    /// no allocation, no UTF-8 validation, and nothing to free when the request is done.
    @exclusivity(unchecked) private var previousFields: [HTTPHeader] = []
    @exclusivity(unchecked) private var previousPath = ""
    /// The route of the last request, reused while method and path repeat.
    @exclusivity(unchecked) private var lastRoute = LastRoute()
    /// Names of long-valued response fields already sent once with indexing on this connection
    /// (`HeaderBlock.flags`).
    @exclusivity(unchecked) private var indexedNames: [String] = []
    /// Rapid-reset defence (see `StreamResetBudget`); GOAWAY(ENHANCE_YOUR_CALM) once spent.
    private var resetBudget = StreamResetBudget()
    private var resetFloodStopped = false

    /// Calls `body` with the session behind nghttp2's user-data pointer, without the
    /// retain/release a strong reference would cost on every callback (the connection keeps
    /// the session alive for the whole nghttp2 call).
    static func with(_ context: UnsafeMutableRawPointer?, _ body: (HTTP2Session) -> Int32) -> Int32 {
        Unmanaged<HTTP2Session>.fromOpaque(context!)._withUnsafeGuaranteedRef(body)
    }

    init(connection: ServerConnection) {
        self.connection = connection
        maxHeaderListBytes = connection.configuration.maxHeaderListBytes
        maxRequestBodyBytes = connection.configuration.maxRequestBodyBytes
        dispatcher = connection.core.dispatcher
        context = connection.context
        var session: OpaquePointer?
        // libcurl 7.88 (Debian 12) answers every body-less response (APNs' 200) with
        // RST_STREAM(STREAM_CLOSED); nghttp2's rapid-reset guard (CVE-2023-44487 backport)
        // counts those and, past ~1000, ends the connection with GOAWAY(INTERNAL_ERROR),
        // dropping answers already decided. A lab server must not punish its own client.
        var option: OpaquePointer?
        nghttp2_option_new(&option)
        nghttp2_option_set_stream_reset_rate_limit(option, 1 << 20, 1 << 20)
        nghttp2_session_server_new2(&session, connection.core.http2Callbacks.callbacks,
                                    Unmanaged.passUnretained(self).toOpaque(), option)
        nghttp2_option_del(option)
        self.session = session
    }

    var hasActiveStreams: Bool { !streams.isEmpty }

    /// How many closed streams a connection keeps: more than a busy client keeps open (h2load
    /// -m 100, the relay's 100 per APNs connection), so a steady load reuses every stream. With
    /// 64, a client with 100 open streams had 36 of them freed and allocated again per round.
    static let pooledStreams = 256

    /// The last `flush` stopped at the high-water mark with nghttp2 still holding frames.
    /// (`nghttp2_session_want_write` alone is no guide: it stays true for DATA blocked by a
    /// stream's flow-control window.)
    private(set) var stoppedAtHighWater = false

    func sendServerPreface() {
        var settings = connection.configuration.settings
        if settings.maxHeaderListSize == nil {
            settings.maxHeaderListSize = UInt32(clamping: connection.configuration.maxHeaderListBytes)
        }
        submitSettings(settings)
    }

    func submitSettings(_ settings: HTTP2Settings) {
        var entries: [nghttp2_settings_entry] = []
        func add(_ id: nghttp2_settings_id, _ value: UInt32?) {
            if let value { entries.append(nghttp2_settings_entry(settings_id: Int32(id.rawValue), value: value)) }
        }
        add(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, settings.maxConcurrentStreams)
        add(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, settings.initialWindowSize)
        add(NGHTTP2_SETTINGS_MAX_FRAME_SIZE, settings.maxFrameSize)
        add(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, settings.maxHeaderListSize)
        add(NGHTTP2_SETTINGS_HEADER_TABLE_SIZE, settings.headerTableSize)
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), entries, entries.count)
    }

    /// GOAWAY with the last stream id we processed: streams up to it still finish
    /// (RFC 9113 §6.8); the connection closes once they have.
    func goAway(errorCode: UInt32, debugData: [UInt8]) {
        let lastStream = nghttp2_session_get_last_proc_stream_id(session)
        nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), lastStream, errorCode, debugData, debugData.count)
    }

    func close() {
        nghttp2_session_del(session)
        session = nil
        streams.removeAll()
        freeStreams.removeAll()
        currentStream = nil
    }

    // MARK: Input

    func receive(_ input: OpaquePointer) {
        while true {
            let length = evbuffer_get_contiguous_space(input)
            guard length > 0, let bytes = evbuffer_pullup(input, length) else { break }
            let consumed = nghttp2_session_mem_recv(session, bytes, length)
            // Negative: a fatal error (bad client magic, flooding). nghttp2 already queued a
            // GOAWAY for protocol errors it can describe; we flush it and close.
            guard consumed >= 0 else {
                evbuffer_drain(input, evbuffer_get_length(input))
                connection.closeAfterFlush()
                return
            }
            evbuffer_drain(input, length)
        }
        connection.throttleIfBacklogged()
    }

    /// Moves every frame nghttp2 has ready into the output buffer, up to the high-water mark.
    func flush() -> FlushResult {
        guard let session else { return .failed }
        let output = connection.output
        // nghttp2 hands out one frame at a time; gathering them into 16 KiB pieces gives TLS
        // full-size records and the socket fewer, larger writes (libevent would otherwise
        // split the output into 4 KiB chains, each becoming its own TLS record).
        let staging = connection.core.outputStaging
        var used = 0
        stoppedAtHighWater = false
        while true {
            if evbuffer_get_length(output) + used >= ServerConnection.outputHighWater {
                stoppedAtHighWater = true
                break
            }
            var data: UnsafePointer<UInt8>?
            let length = nghttp2_session_mem_send(session, &data)
            if length < 0 { return .failed }
            if length == 0 { break }
            if used + length > staging.count && used > 0 {
                evbuffer_add(output, staging.baseAddress, used)
                used = 0
            }
            if length > staging.count {
                evbuffer_add(output, data, length)
            } else {
                (staging.baseAddress! + used).update(from: data!, count: length)
                used += length
            }
        }
        if used > 0 { evbuffer_add(output, staging.baseAddress, used) }
        if nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0 {
            return .finished
        }
        return .open
    }

    // MARK: nghttp2 callbacks (loop thread, inside receive/flush)

    private func stream(_ id: Int32) -> HTTP2Stream? {
        guard let pointer = nghttp2_session_get_stream_user_data(session, id) else { return nil }
        return Unmanaged<HTTP2Stream>.fromOpaque(pointer).takeUnretainedValue()
    }

    fileprivate func beginHeaders(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        guard frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
              frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST else { return 0 }
        let id = frame.pointee.hd.stream_id
        let stream: HTTP2Stream
        if let pooled = freeStreams.popLast() {
            pooled.reuse(as: id)
            stream = pooled
        } else {
            stream = HTTP2Stream(id: id)
        }
        streams[id] = stream
        currentStream = stream
        nghttp2_session_set_stream_user_data(session, id, Unmanaged.passUnretained(stream).toOpaque())
        return 0
    }

    fileprivate func header(_ frame: UnsafePointer<nghttp2_frame>, _ name: UnsafePointer<UInt8>, _ nameLength: Int,
                            _ value: UnsafePointer<UInt8>, _ valueLength: Int) -> Int32 {
        guard frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
              frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST else { return 0 }
        // Header callbacks follow their stream's begin-headers callback directly (a header
        // block is never interleaved, RFC 9113 §4.3), so the stream is usually at hand.
        let stream: HTTP2Stream
        if let current = currentStream, current.id == frame.pointee.hd.stream_id {
            stream = current
        } else if let found = self.stream(frame.pointee.hd.stream_id) {
            stream = found
        } else {
            return 0
        }
        // RFC 9113 §6.5.2: a field counts its name, its value and 32 bytes of overhead.
        stream.headerListBytes += nameLength + valueLength + 32
        if stream.headerListBytes > maxHeaderListBytes {
            stream.headersTooLarge = true
            stream.headers.removeAll()
            stream.headerCount = 0
            return 0
        }
        if stream.headersTooLarge { return 0 }
        let valueBytes = UnsafeBufferPointer(start: value, count: valueLength)
        if name[0] == UInt8(ascii: ":") {
            // nghttp2 has already validated the pseudo-header set (RFC 9113 §8.3.1).
            switch nameLength {
            case 5 where name[1] == UInt8(ascii: "p"):
                stream.path = Self.same(previousPath, valueBytes) ? previousPath : String(decoding: valueBytes, as: UTF8.self)
            case 7 where name[1] == UInt8(ascii: "m"): stream.method = String(decoding: valueBytes, as: UTF8.self)
            case 10 where name[1] == UInt8(ascii: "a"): stream.authority = String(decoding: valueBytes, as: UTF8.self)
            default: break  // :scheme
            }
            return 0
        }
        if stream.headers.isEmpty { stream.headers.reserveCapacity(8) }
        let nameBytes = UnsafeBufferPointer(start: name, count: nameLength)
        let position = stream.headerCount
        // A pooled stream still holds its previous request's fields: the same field at the same
        // position stays where it is (no retain now, no release when the stream is reused).
        if position < stream.headers.count, Self.same(stream.headers[position].name, nameBytes),
           Self.same(stream.headers[position].value, valueBytes) {
            stream.headerCount = position + 1
            return 0
        }
        if position < previousFields.count {
            let previous = previousFields[position]
            if Self.same(previous.name, nameBytes) {
                stream.addField(Self.same(previous.value, valueBytes)
                                ? previous : HTTPHeader(previous.name, String(decoding: valueBytes, as: UTF8.self)))
                return 0
            }
        }
        stream.addField(HTTPHeader(String(decoding: nameBytes, as: UTF8.self), String(decoding: valueBytes, as: UTF8.self)))
        return 0
    }

    /// Makes `stream`'s fields the reference for the next request's. Kept in the session's own
    /// array, element by element: sharing the stream's array would make the stream allocate a
    /// new one for every request. Fields reused from the reference are the same strings, so
    /// comparing them is a pointer check.
    private func rememberFields(of stream: HTTP2Stream) {
        for (index, field) in stream.headers.enumerated() {
            if index == previousFields.count {
                previousFields.append(field)
            } else if previousFields[index] != field {
                previousFields[index] = field
            }
        }
        if previousFields.count > stream.headers.count { previousFields.removeLast(previousFields.count - stream.headers.count) }
        if previousPath != stream.path { previousPath = stream.path }
    }

    /// Whether `string` is exactly `bytes`.
    @inline(__always)
    private static func same(_ string: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        string.utf8.count == bytes.count && string.utf8.withContiguousStorageIfAvailable { stored in
            bytes.isEmpty || memcmp(stored.baseAddress!, bytes.baseAddress!, bytes.count) == 0
        } == true
    }

    fileprivate func dataChunk(_ streamID: Int32, _ data: UnsafePointer<UInt8>, _ length: Int) -> Int32 {
        guard let stream = stream(streamID), !stream.answered else { return 0 }
        if stream.body.count + length > maxRequestBodyBytes {
            // Answer at once (RFC 9113 §8.1 lets a server respond before the request is
            // complete) and drop the rest of the body. RFC 9113 also allows a RST_STREAM
            // (NO_ERROR) after the response, but curl 7.88 reports that as a failed transfer and
            // loses the 413, so the stream is left to finish.
            stream.body = []
            respond(stream, .text(413, "request body exceeds \(maxRequestBodyBytes) bytes\n"))
            return 0
        }
        stream.body.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
        return 0
    }

    fileprivate func frameReceived(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        connection.peerSpoke()
        let type = frame.pointee.hd.type
        if type == UInt8(NGHTTP2_RST_STREAM.rawValue), !resetFloodStopped, streams[frame.pointee.hd.stream_id] != nil,
           !resetBudget.spend() {
            // RFC 9113 §5.4.1 / CVE-2023-44487: a peer cancelling in-flight streams this fast is
            // attacking; ENHANCE_YOUR_CALM (0xb) says why, streams already accepted still finish.
            resetFloodStopped = true
            goAway(errorCode: HTTP2ErrorCode.enhanceYourCalm.rawValue, debugData: Array("too many stream resets".utf8))
            return 0
        }
        guard type == UInt8(NGHTTP2_HEADERS.rawValue) || type == UInt8(NGHTTP2_DATA.rawValue),
              frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0,
              let stream = stream(frame.pointee.hd.stream_id), !stream.answered else { return 0 }
        // Added in the stream's own array (unique, with room): building the request's copy
        // and then adding to it cost an array copy per request.
        if let authority = stream.authority, !stream.headers[..<stream.headerCount].contains(where: { $0.hasName("host") }) {
            let position = stream.headerCount
            if position < stream.headers.count, stream.headers[position].hasName("host"), stream.headers[position].value == authority {
                stream.headerCount = position + 1
            } else {
                stream.addField(HTTPHeader("host", authority))
            }
        }
        stream.dropPreviousFields()
        rememberFields(of: stream)
        if stream.headersTooLarge {
            respond(stream, .text(431, "request header fields exceed \(maxHeaderListBytes) bytes\n"))
            return 0
        }
        let target = stream.path
        var path = target
        var query: String?
        // Most requests have no query: a byte scan of the contiguous path says so quickly.
        if target.utf8.withContiguousStorageIfAvailable({ $0.contains(UInt8(ascii: "?")) }) ?? true,
           let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) {
            path = String(target[..<mark])
            query = String(target[target.index(after: mark)...])
        }
        let route = lastRoute.match(dispatcher.router, method: stream.method, path: path)
        let request = ServerRequest(method: stream.method, path: path, query: query, headers: HTTPHeaders(stream.headers), body: stream.body,
                                    version: .http2, streamID: stream.id, connection: context)
        switch dispatcher.dispatch(consume request, route: route) {
        case .respond(let response): respond(stream, response)
        case .reset(let code): reset(stream, code)
        case .pending: break
        }
        return 0
    }

    fileprivate func streamClosed(_ streamID: Int32) -> Int32 {
        guard let stream = streams.removeValue(forKey: streamID) else { return 0 }
        if currentStream === stream { currentStream = nil }
        if freeStreams.count < Self.pooledStreams { freeStreams.append(stream) }
        return 0
    }

    // MARK: Output

    /// A `.later` response arriving on the loop; the stream may have been reset meanwhile.
    func deliver(streamID: Int32, _ response: ServerResponse) {
        guard let stream = streams[streamID], !stream.answered else { return }
        respond(stream, response)
    }

    func reset(streamID: Int32, _ code: UInt32) {
        guard let stream = streams[streamID], !stream.answered else { return }
        reset(stream, code)
    }

    private func reset(_ stream: HTTP2Stream, _ code: UInt32) {
        stream.answered = true
        nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream.id, code)
    }

    private func respond(_ stream: HTTP2Stream, _ response: ServerResponse) {
        stream.answered = true
        if response.headers.count == 0 && response.inlineHeaders.isEmpty && response.body.isEmpty {
            // The common emulator answer (a bare status): no buffers to build.
            HeaderBlock.withStatusOnly(response.status) { nva, count in
                _ = nghttp2_submit_response(session, stream.id, nva, count, nil)
            }
            return
        }
        // A HEAD answer carries the length the GET answer would have (RFC 9110 §8.6), no DATA.
        let hasBody = !response.body.isEmpty && stream.method != "HEAD"
        var provider = nghttp2_data_provider()
        if hasBody {
            stream.responseBody = response.body
            provider.read_callback = Self.readResponseBody
        }
        let submitted = withUnsafeMutablePointer(to: &provider) { provider in
            HeaderBlock.withSmallBlock(response.status, response.headers, inline: response.inlineHeaders,
                                       contentLength: response.body.isEmpty ? nil : response.body.count,
                                       indexedNames: &indexedNames) { nva, count in
                nghttp2_submit_response(session, stream.id, nva, count, hasBody ? provider : nil)
            }
        }
        if submitted != nil { return }
        var block = HeaderBlock(status: response.status)
        for field in response.headers where !HeaderBlock.isConnectionSpecific(field.name) {
            block.add(field.name, field.value)
        }
        for field in response.inlineHeaders where !HeaderBlock.isConnectionSpecific(field.name) {
            block.add(field)
        }
        if !response.body.isEmpty && response.headers["content-length"] == nil {
            block.add("content-length", String(response.body.count))
        }
        if hasBody {
            block.withNameValues(indexedNames: &indexedNames) { nva, count in _ = nghttp2_submit_response(session, stream.id, nva, count, &provider) }
        } else {
            block.withNameValues(indexedNames: &indexedNames) { nva, count in _ = nghttp2_submit_response(session, stream.id, nva, count, nil) }
        }
    }

    /// nghttp2's DATA source for an answer's body: the stream's `responseBody` from `responseOffset`.
    private static let readResponseBody: nghttp2_data_source_read_callback = { session, streamID, buffer, length, flags, _, _ in
        guard let pointer = nghttp2_session_get_stream_user_data(session, streamID) else {
            return ssize_t(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
        }
        let stream = Unmanaged<HTTP2Stream>.fromOpaque(pointer).takeUnretainedValue()
        let count = min(length, stream.responseBody.count - stream.responseOffset)
        stream.responseBody.withUnsafeBytes { bytes in
            buffer!.update(from: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self) + stream.responseOffset,
                           count: count)
        }
        stream.responseOffset += count
        if stream.responseOffset == stream.responseBody.count {
            flags!.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue)
        }
        return count
    }
}
