import CPushLab

/// A response header block laid out for `nghttp2_submit_response`: every name and value in one
/// byte buffer, names lowercased as HTTP/2 requires (RFC 9113 §8.2.1). nghttp2 copies the
/// fields during the submit call, so the buffer only has to live that long.
struct HeaderBlock {
    private var bytes: [UInt8] = []
    private var fields: [(name: Int, nameLength: Int, value: Int, valueLength: Int)] = []

    init(status: Int) {
        // Room for `:status` plus a few fields (e.g. APNs' apns-id and apns-unique-id) without
        // growing either array on the hot path.
        bytes.reserveCapacity(160)
        fields.reserveCapacity(6)
        bytes.append(contentsOf: ":status".utf8)
        let code = min(max(status, 100), 999)
        bytes.append(UInt8(ascii: "0") + UInt8(code / 100))
        bytes.append(UInt8(ascii: "0") + UInt8(code / 10 % 10))
        bytes.append(UInt8(ascii: "0") + UInt8(code % 10))
        fields.append((0, 7, 7, 3))
    }

    mutating func add(_ name: String, _ value: String) {
        var value = value
        value.withUTF8 { add(name, bytes: $0) }
    }

    mutating func add(_ field: InlineHeaderField) {
        field.withValue { value in add(field.name, bytes: value) }
    }

    private mutating func add(_ name: String, bytes value: UnsafeBufferPointer<UInt8>) {
        let nameStart = bytes.count
        bytes.append(contentsOf: name.utf8)
        // Lowercase in place (names are ASCII tokens); most are lowercase already.
        for index in nameStart..<bytes.count where bytes[index] >= UInt8(ascii: "A") && bytes[index] <= UInt8(ascii: "Z") {
            bytes[index] += 32
        }
        let valueStart = bytes.count
        bytes.append(contentsOf: value)
        fields.append((nameStart, valueStart - nameStart, valueStart, bytes.count - valueStart))
    }

    /// Values this long are sent without adding them to the HPACK dynamic table (RFC 7541
    /// §6.2.2): long values are ids and dates that never repeat (APNs' apns-id and
    /// apns-unique-id on every answer), so indexing them only churns the table; short ones
    /// (content-type, status-like fields) repeat and stay indexed.
    static let unindexedValueLength = 32

    /// The HPACK flag for a field: short values are indexed; a long value is indexed only the
    /// first time its name is sent on the connection (`indexedNames` remembers the names, at
    /// most 8), which puts the name in the dynamic table, so every later literal value refers to
    /// the name by index (RFC 7541 §6.2.3) instead of spelling it out — for APNs' answers the
    /// client decodes and allocates two names fewer per response, the server encodes two fewer.
    @inline(__always)
    static func flags(name: String, valueLength: Int, indexedNames: inout [String]) -> UInt8 {
        guard valueLength >= unindexedValueLength else { return UInt8(NGHTTP2_NV_FLAG_NONE.rawValue) }
        for indexed in indexedNames where indexed == name { return UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue) }
        if indexedNames.count < 8 { indexedNames.append(name) }
        return UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)
    }

    /// RFC 9113 §8.2.2: connection-specific fields must not appear in HTTP/2.
    static func isConnectionSpecific(_ name: String) -> Bool {
        switch name.utf8.count {
        case 7: return HTTPHeaders.namesMatch(name, "upgrade")
        case 10: return HTTPHeaders.namesMatch(name, "connection") || HTTPHeaders.namesMatch(name, "keep-alive")
        case 16: return HTTPHeaders.namesMatch(name, "proxy-connection")
        case 17: return HTTPHeaders.namesMatch(name, "transfer-encoding")
        default: return false
        }
    }

    /// A block holding only `:status`, laid out on the stack.
    static func withStatusOnly<R>(_ status: Int, _ body: (UnsafePointer<nghttp2_nv>, Int) -> R) -> R {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 10) { bytes in
            bytes[0] = UInt8(ascii: ":"); bytes[1] = UInt8(ascii: "s"); bytes[2] = UInt8(ascii: "t")
            bytes[3] = UInt8(ascii: "a"); bytes[4] = UInt8(ascii: "t"); bytes[5] = UInt8(ascii: "u")
            bytes[6] = UInt8(ascii: "s")
            let code = min(max(status, 100), 999)
            bytes[7] = UInt8(ascii: "0") + UInt8(code / 100)
            bytes[8] = UInt8(ascii: "0") + UInt8(code / 10 % 10)
            bytes[9] = UInt8(ascii: "0") + UInt8(code % 10)
            var field = nghttp2_nv(name: bytes.baseAddress!, value: bytes.baseAddress! + 7, namelen: 7, valuelen: 3,
                                   flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
            return withUnsafePointer(to: &field) { body($0, 1) }
        }
    }

    /// A block of `:status` and `headers` laid out on the stack, when it is small (what the
    /// emulators answer: APNs' `apns-id` and `apns-unique-id`, FCM's content type); nil when it
    /// does not fit, and the caller builds a `HeaderBlock`. Saves the two arrays a `HeaderBlock`
    /// allocates. `contentLength` adds a `content-length` field unless `headers` has one, as the
    /// `HeaderBlock` path does for an answer with a body.
    static func withSmallBlock<R>(_ status: Int, _ headers: HTTPHeaders, inline: InlineHeaderFields = InlineHeaderFields(),
                                  contentLength: Int? = nil, indexedNames: inout [String],
                                  _ body: (UnsafePointer<nghttp2_nv>, Int) -> R) -> R? {
        let maxBytes = 512, maxFields = 8
        guard headers.count + inline.count < maxFields - 1 else { return nil }
        var total = 10 + 14 + 20
        var length = contentLength
        for field in headers {
            total += field.name.utf8.count + field.value.utf8.count
            if length != nil, field.name.utf8.count == 14, HTTPHeaders.namesMatch(field.name, "content-length") { length = nil }
        }
        total += inline.count * (InlineHeaderField.nameCapacity + InlineHeaderField.capacity)
        guard total <= maxBytes else { return nil }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maxBytes) { bytes in
            withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: maxFields) { nva in
                let base = bytes.baseAddress!
                var used = 0
                func put(_ string: String) -> (Int, Int) {
                    let start = used
                    // Read in place (native strings are contiguous): `withUTF8` needs a mutable
                    // copy, a retain and a release of each answer id.
                    let copied: Void? = string.utf8.withContiguousStorageIfAvailable { utf8 in
                        if !utf8.isEmpty { (base + used).update(from: utf8.baseAddress!, count: utf8.count) }
                        used += utf8.count
                    }
                    if copied == nil {
                        for byte in string.utf8 {
                            base[used] = byte
                            used += 1
                        }
                    }
                    return (start, used - start)
                }
                let code = min(max(status, 100), 999)
                _ = put(":status")
                base[7] = UInt8(ascii: "0") + UInt8(code / 100)
                base[8] = UInt8(ascii: "0") + UInt8(code / 10 % 10)
                base[9] = UInt8(ascii: "0") + UInt8(code % 10)
                used = 10
                nva[0] = nghttp2_nv(name: base, value: base + 7, namelen: 7, valuelen: 3, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
                var count = 1
                for field in headers where !isConnectionSpecific(field.name) {
                    let (nameStart, nameLength) = put(field.name)
                    // Lowercase in place, as `add` does (RFC 9113 §8.2.1).
                    for index in nameStart..<nameStart + nameLength where base[index] >= UInt8(ascii: "A") && base[index] <= UInt8(ascii: "Z") {
                        base[index] += 32
                    }
                    let (valueStart, valueLength) = put(field.value)
                    nva[count] = nghttp2_nv(name: base + nameStart, value: base + valueStart, namelen: nameLength, valuelen: valueLength,
                                            flags: flags(name: field.name, valueLength: valueLength, indexedNames: &indexedNames))
                    count += 1
                }
                putInline(inline, base: base, used: &used, nva: nva.baseAddress!, count: &count, indexedNames: &indexedNames)
                if let length {
                    let (nameStart, nameLength) = put("content-length")
                    // At most 20 digits: a small string, no allocation.
                    let (valueStart, valueLength) = put(String(max(length, 0)))
                    nva[count] = nghttp2_nv(name: base + nameStart, value: base + valueStart, namelen: nameLength, valuelen: valueLength,
                                            flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
                    count += 1
                }
                return body(UnsafePointer(nva.baseAddress!), count)
            }
        }
    }

    /// `withSmallBlock`'s inline fields: name and value bytes straight from the fields' storage
    /// to `base + used`, a field each from `nva[count]` on.
    private static func putInline(_ inline: InlineHeaderFields, base: UnsafeMutablePointer<UInt8>, used: inout Int,
                                  nva: UnsafeMutablePointer<nghttp2_nv>, count: inout Int, indexedNames: inout [String]) {
        func put(_ bytes: UnsafeBufferPointer<UInt8>) -> (Int, Int) {
            let start = used
            if let source = bytes.baseAddress { (base + used).update(from: source, count: bytes.count) }
            used += bytes.count
            return (start, bytes.count)
        }
        for index in 0..<inline.count {
            let field = inline[index]
            let name = field.name  // at most 15 bytes for the ids: a small string
            if isConnectionSpecific(name) { continue }
            let (nameStart, nameLength) = field.withName(put)
            // Lowercase in place, as `add` does (RFC 9113 §8.2.1).
            for index in nameStart..<nameStart + nameLength where base[index] >= UInt8(ascii: "A") && base[index] <= UInt8(ascii: "Z") {
                base[index] += 32
            }
            let (valueStart, valueLength) = field.withValue(put)
            nva[count] = nghttp2_nv(name: base + nameStart, value: base + valueStart, namelen: nameLength, valuelen: valueLength,
                                    flags: flags(name: name, valueLength: valueLength, indexedNames: &indexedNames))
            count += 1
        }
    }

    func withNameValues<R>(indexedNames: inout [String], _ body: (UnsafePointer<nghttp2_nv>, Int) -> R) -> R {
        // nghttp2 copies every field during the submit (NGHTTP2_NV_FLAG_NONE) and never writes
        // through these pointers; its struct merely declares them mutable.
        bytes.withUnsafeBufferPointer { buffer in
            let base = UnsafeMutablePointer(mutating: buffer.baseAddress!)
            return withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: fields.count) { nva in
                for (index, field) in fields.enumerated() {
                    let flags = field.valueLength < Self.unindexedValueLength ? UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)
                        : Self.flags(name: String(decoding: UnsafeBufferPointer(start: base + field.name, count: field.nameLength), as: UTF8.self),
                                     valueLength: field.valueLength, indexedNames: &indexedNames)
                    nva[index] = nghttp2_nv(name: base + field.name, value: base + field.value,
                                            namelen: field.nameLength, valuelen: field.valueLength, flags: flags)
                }
                return body(UnsafePointer(nva.baseAddress!), fields.count)
            }
        }
    }
}
