import CPushLab

/// The nghttp2 callback table of the direct HTTP/2 client, built once per client. Every
/// callback finds its connection through the session user data and its exchange through the
/// stream user data (both unretained) and hands the event to the loop.
final class NGHTTP2ClientCallbacks {
    let callbacks: OpaquePointer

    init() {
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        self.callbacks = callbacks!
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { session, frame, _ in
            exchange(session, frame!.pointee.hd.stream_id)?.beginHeaders()
            return 0
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { session, frame, name, nameLength, value, valueLength, _, context in
            let streamID = frame!.pointee.hd.stream_id
            guard let exchange = exchange(session, streamID) else { return 0 }
            let accepted = exchange.header(name: UnsafeBufferPointer(start: name, count: nameLength),
                                           value: UnsafeBufferPointer(start: value, count: valueLength), now: cpl_h2c_now_ns)
            if !accepted { connection(context).loop.abandonStream(of: exchange) }
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { session, _, streamID, data, length, context in
            guard let exchange = exchange(session, streamID) else { return 0 }
            if !exchange.data(UnsafeBufferPointer(start: data, count: length)) {
                connection(context).loop.abandonStream(of: exchange)
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { session, frame, context in
            let header = frame!.pointee.hd
            switch UInt32(header.type) {
            case NGHTTP2_HEADERS.rawValue, NGHTTP2_DATA.rawValue:
                if header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0 {
                    exchange(session, header.stream_id)?.complete = true
                }
            case NGHTTP2_GOAWAY.rawValue:
                connection(context).loop.goAwayReceived(on: connection(context))
            case NGHTTP2_SETTINGS.rawValue:
                connection(context).loop.streamsMayBeFree(on: connection(context))
            default:
                break
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks) { session, frame, _ in
            if UInt32(frame!.pointee.hd.type) == NGHTTP2_HEADERS.rawValue {
                exchange(session, frame!.pointee.hd.stream_id)?.headersSent = true
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_not_send_callback(callbacks) { session, frame, _, _ in
            if UInt32(frame!.pointee.hd.type) == NGHTTP2_HEADERS.rawValue {
                exchange(session, frame!.pointee.hd.stream_id)?.notSent = true
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { session, streamID, errorCode, context in
            let connection = connection(context)
            connection.openStreams -= 1
            connection.loop.streamClosed(exchange(session, streamID), on: connection, code: HTTP2ErrorCode(rawValue: errorCode))
            return 0
        }
    }

    deinit { nghttp2_session_callbacks_del(callbacks) }
}

private func connection(_ context: UnsafeMutableRawPointer?) -> NGHTTP2Connection {
    Unmanaged<NGHTTP2Connection>.fromOpaque(context!).takeUnretainedValue()
}

private func exchange(_ session: OpaquePointer?, _ streamID: Int32) -> NGHTTP2Exchange? {
    guard let pointer = nghttp2_session_get_stream_user_data(session, streamID) else { return nil }
    return Unmanaged<NGHTTP2Exchange>.fromOpaque(pointer).takeUnretainedValue()
}
