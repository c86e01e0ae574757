import CPushLab

/// One blocking hiredis connection. Not thread-safe: `RedisClient` confines it to its queue.
/// The hiredis types stay in this file.
final class RedisConnection {
    private var context: UnsafeMutablePointer<redisContext>?
    private let ioTimeoutMs: Int32

    /// Connects within `connectTimeout`; `ioTimeout` bounds every later read and write.
    init(host: String, port: Int, connectTimeout: Duration, ioTimeout: Duration) throws(RedisConnectionFailure) {
        ioTimeoutMs = Int32(ioTimeout.milliseconds)
        guard let context = cpl_redis_connect(host, Int32(port), Int32(connectTimeout.milliseconds), ioTimeoutMs) else {
            throw RedisConnectionFailure(reason: "out of memory")
        }
        if context.pointee.err != 0 {
            let reason = String(cString: cpl_redis_errstr(context))
            redisFree(context)
            throw RedisConnectionFailure(reason: reason)
        }
        self.context = context
    }

    deinit { close() }

    func close() {
        if let context { redisFree(context) }
        context = nil
    }

    /// Sends the commands in one write and reads their replies in order (one command is a
    /// pipeline of one). `readTimeout` replaces the I/O timeout for this call (a `BLOCK` read).
    ///
    /// After a failure hiredis cannot use the context again, so it is freed — here and only
    /// here, once `exchange` (the last code holding the pointer, its timeout restore included)
    /// has returned. Freeing it inside the exchange left a `defer` restoring the timeout on
    /// freed memory: `redisSetTimeout` writes the context's error text, which corrupted the
    /// heap a few seconds after every lost `XREADGROUP … BLOCK` read (issue 43).
    func pipeline(_ commands: [RedisCommand], readTimeout: Duration? = nil) throws(RedisConnectionFailure) -> [RedisReply] {
        guard let context else { throw RedisConnectionFailure(reason: "not connected") }
        do {
            return try Self.exchange(context, commands, readTimeout: readTimeout, ioTimeoutMs: ioTimeoutMs)
        } catch {
            close()
            throw error
        }
    }

    /// The pipeline on an open context, which it never frees: a failure returns the context's
    /// error text, and the caller frees the context.
    private static func exchange(_ context: UnsafeMutablePointer<redisContext>, _ commands: [RedisCommand],
                                 readTimeout: Duration?, ioTimeoutMs: Int32) throws(RedisConnectionFailure) -> [RedisReply] {
        if let readTimeout { cpl_redis_set_timeout_ms(context, Int32(readTimeout.milliseconds)) }
        defer { if readTimeout != nil { cpl_redis_set_timeout_ms(context, ioTimeoutMs) } }
        for command in commands {
            let appended = withArgv(command.arguments) { argc, argv, lengths in
                redisAppendCommandArgv(context, argc, argv, lengths)
            }
            guard appended == REDIS_OK else { throw failure(context) }
        }
        var replies: [RedisReply] = []
        replies.reserveCapacity(commands.count)
        for _ in commands {
            var raw: UnsafeMutableRawPointer?
            guard redisGetReply(context, &raw) == REDIS_OK, let raw else { throw failure(context) }
            let reply = raw.assumingMemoryBound(to: redisReply.self)
            replies.append(convert(reply))
            freeReplyObject(raw)
        }
        return replies
    }

    /// The context's error (read while the context is still allocated).
    private static func failure(_ context: UnsafeMutablePointer<redisContext>) -> RedisConnectionFailure {
        let reason = String(cString: cpl_redis_errstr(context))
        return RedisConnectionFailure(reason: reason.isEmpty ? "connection closed" : reason)
    }

    private static func convert(_ pointer: UnsafeMutablePointer<redisReply>) -> RedisReply {
        let reply = pointer.pointee
        switch reply.type {
        case REDIS_REPLY_STRING:
            return .bulk(reply.str.map { Array(UnsafeRawBufferPointer(start: $0, count: reply.len)) } ?? [])
        case REDIS_REPLY_STATUS:
            return .status(text(reply))
        case REDIS_REPLY_ERROR:
            return .error(text(reply))
        case REDIS_REPLY_INTEGER:
            return .integer(Int64(reply.integer))
        case REDIS_REPLY_ARRAY:
            var elements: [RedisReply] = []
            elements.reserveCapacity(reply.elements)
            for index in 0..<reply.elements {
                if let element = reply.element[index] { elements.append(convert(element)) } else { elements.append(.null) }
            }
            return .array(elements)
        default:  // REDIS_REPLY_NIL
            return .null
        }
    }

    private static func text(_ reply: redisReply) -> String {
        guard let str = reply.str else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: str, count: reply.len), as: UTF8.self)
    }

    /// Lays the arguments out in one buffer and hands hiredis pointers into it.
    private static func withArgv<T>(_ arguments: [[UInt8]],
                                    _ body: (Int32, UnsafeMutablePointer<UnsafePointer<CChar>?>, UnsafePointer<Int>) -> T) -> T {
        var flat: [UInt8] = []
        flat.reserveCapacity(arguments.reduce(0) { $0 + $1.count } + 1)
        var offsets: [Int] = []
        offsets.reserveCapacity(arguments.count)
        for argument in arguments {
            offsets.append(flat.count)
            flat.append(contentsOf: argument)
        }
        flat.append(0)  // never empty, so baseAddress is never nil
        let lengths = arguments.map(\.count)
        return flat.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            var argv: [UnsafePointer<CChar>?] = offsets.map { base + $0 }
            return argv.withUnsafeMutableBufferPointer { argvBuffer in
                lengths.withUnsafeBufferPointer { lengthBuffer in
                    body(Int32(arguments.count), argvBuffer.baseAddress!, lengthBuffer.baseAddress!)
                }
            }
        }
    }
}

/// What hiredis said when a connection failed or broke.
struct RedisConnectionFailure: Error {
    var reason: String
}

extension Duration {
    /// Whole milliseconds, at least 1 when positive (0 means "no timeout" to the socket).
    var milliseconds: Int {
        let (seconds, attoseconds) = components
        let ms = Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
        return ms == 0 && self > .zero ? 1 : ms
    }
}
