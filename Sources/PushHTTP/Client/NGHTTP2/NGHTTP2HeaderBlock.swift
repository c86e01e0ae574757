import CPushLab

/// The header fields of one request as nghttp2 wants them: name/value pointers into one byte
/// buffer, reused for every request (nghttp2 copies them when the request is submitted).
/// Pseudo-headers first (RFC 9113 §8.3.1), then the request's fields with names lower-cased
/// (§8.2.1) and connection-specific ones left out (§8.2.2; `host` becomes `:authority`), then
/// `user-agent` and `content-length` when the request sets none. Loop thread only.
final class NGHTTP2HeaderBlock {
    private(set) var fields: UnsafeMutablePointer<nghttp2_nv>
    private(set) var count = 0
    private var fieldCapacity = 16
    private var bytes: UnsafeMutablePointer<UInt8>
    private var byteCapacity = 4096
    private var used = 0

    init() {
        fields = .allocate(capacity: fieldCapacity)
        bytes = .allocate(capacity: byteCapacity)
    }

    deinit {
        fields.deallocate()
        bytes.deallocate()
    }

    func build(method: String, tls: Bool, authority: String, path: String, headers: HTTPHeaders,
               bodyCount: Int, userAgent: String) {
        // Room first: nothing may move once pointers into `bytes` are taken.
        var needBytes = method.utf8.count + authority.utf8.count + path.utf8.count + 64 + userAgent.utf8.count + 40
        for field in headers.fields { needBytes += field.name.utf8.count + field.value.utf8.count }
        let needFields = headers.count + 7
        if needBytes > byteCapacity {
            bytes.deallocate()
            byteCapacity = max(needBytes, byteCapacity * 2)
            bytes = .allocate(capacity: byteCapacity)
        }
        if needFields > fieldCapacity {
            fields.deallocate()
            fieldCapacity = max(needFields, fieldCapacity * 2)
            fields = .allocate(capacity: fieldCapacity)
        }
        count = 0
        used = 0
        add(":method", method)
        add(":scheme", tls ? "https" : "http")
        add(":authority", authority)
        add(":path", path)
        var hasUserAgent = false, hasLength = false
        for field in headers.fields {
            let name = copy(field.name, lowercased: true)
            switch Self.kind(of: UnsafeBufferPointer(start: name.start, count: name.count)) {
            case .connectionSpecific:
                used -= name.count
                continue
            case .userAgent: hasUserAgent = true
            case .contentLength: hasLength = true
            case .other: break
            }
            let value = copy(field.value, lowercased: false)
            append(name: name, value: value)
        }
        if !hasUserAgent { add("user-agent", userAgent) }
        if !hasLength && (bodyCount > 0 || method == "POST" || method == "PUT") { add("content-length", String(bodyCount)) }
    }

    private enum Kind { case connectionSpecific, userAgent, contentLength, other }

    private static func kind(of name: UnsafeBufferPointer<UInt8>) -> Kind {
        func equals(_ literal: StaticString) -> Bool {
            name.count == literal.utf8CodeUnitCount && memcmp(name.baseAddress!, literal.utf8Start, name.count) == 0
        }
        switch name.count {
        case 4: return equals("host") ? .connectionSpecific : .other
        case 7: return equals("upgrade") ? .connectionSpecific : .other
        case 10:
            if equals("connection") || equals("keep-alive") { return .connectionSpecific }
            return equals("user-agent") ? .userAgent : .other
        case 14: return equals("content-length") ? .contentLength : .other
        case 16: return equals("proxy-connection") ? .connectionSpecific : .other
        case 17: return equals("transfer-encoding") ? .connectionSpecific : .other
        default: return .other
        }
    }

    private func add(_ name: StaticString, _ value: String) {
        let start = bytes + used
        start.update(from: name.utf8Start, count: name.utf8CodeUnitCount)
        used += name.utf8CodeUnitCount
        append(name: (start, name.utf8CodeUnitCount), value: copy(value, lowercased: false))
    }

    private func copy(_ text: String, lowercased: Bool) -> (start: UnsafeMutablePointer<UInt8>, count: Int) {
        var text = text
        let start = bytes + used
        let count = text.withUTF8 { source -> Int in
            guard let base = source.baseAddress else { return 0 }
            start.update(from: base, count: source.count)
            return source.count
        }
        if lowercased {
            for index in 0..<count where start[index] >= UInt8(ascii: "A") && start[index] <= UInt8(ascii: "Z") {
                start[index] |= 0x20
            }
        }
        used += count
        return (start, count)
    }

    private func append(name: (start: UnsafeMutablePointer<UInt8>, count: Int), value: (start: UnsafeMutablePointer<UInt8>, count: Int)) {
        fields[count] = nghttp2_nv(name: name.start, value: value.start, namelen: name.count, valuelen: value.count,
                                   flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
        count += 1
    }
}
