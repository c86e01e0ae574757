import Foundation
import PushCore
import PushHTTP

/// One push record packed into a single byte buffer: what the store keeps per push.
///
/// A `RecordedPush` holds a dozen strings plus the request's header array and body; keeping
/// it cost the event loop a retain per field when recording and a release (and up to five
/// `free`s) per field when the ring pushed the oldest out, and it kept the HTTP/2 stream's
/// header and body buffers shared, so the next request on the stream allocated new ones
/// (benchmarks/results/gateway.md, "Where the gateway's time goes"). Packed, a record is one
/// buffer that the ring overwrites in place once full: no allocation, no free, no reference
/// counting per push. The header map (names lowercased, authorization redacted) and the payload
/// text are laid out when packing, and built as `PushRecord` values only when read.
///
/// Layout: receivedAt (seconds since the reference date, Float64 bits), service (1 byte), status (Int64), then token, device,
/// topic, push type, message id, reason, delivery id, unique id as optional strings (UInt32
/// length, `UInt32.max` for nil, then the UTF-8 bytes), the header count (UInt32) and each
/// field's name and value as strings, then the payload as a string. Integers little-endian.
struct PackedPush: Sendable {
    /// A record's ids as inline text (`APNsRoute`) or bytes (`FCMSendRoute`), packed in place
    /// of the record's strings.
    struct RecordIDs {
        var messageID: CanonicalUUIDText?
        var uniqueID: CanonicalUUIDText?
        /// The FCM message name as UTF-8, in the route's answer (`FCMSendRoute.name(in:)`).
        var messageName: ArraySlice<UInt8>?

        /// The message id as text, when given here (nil: the record's own).
        var messageIDString: String? {
            if let messageID { return messageID.string }
            return messageName.map { String(decoding: $0, as: UTF8.self) }
        }
    }

    var bytes: [UInt8] = []

    /// docs/gateway.md: the payload text keeps the first 8 KiB of the body.
    static let payloadPrefixBytes = 8192
    fileprivate static let absent = UInt32.max
    private static let redactedAuthorization = "bearer <redacted>"

    /// Packs `record`, taking the header map and payload from `rawHeaders` and `body` when given
    /// (as `RecordedPush.completed` builds them), else from the record, and the message id and
    /// unique id from `ids` when given (the routes' inline ids; the record's are nil then).
    /// Reuses `bytes`'s storage: the size is counted first, then every field is copied into
    /// place with `memcpy`.
    mutating func pack(_ record: PushRecord, rawHeaders: HTTPHeaders?, body: [UInt8]?, ids: RecordIDs = RecordIDs()) {
        // Spelled out, not looped over an array literal: that array would be an allocation per push.
        var size = 8 + 1 + 8 + 8 * 4 + 4 + 4
        size += (record.token?.utf8.count ?? 0) + (record.device?.utf8.count ?? 0) + (record.topic?.utf8.count ?? 0)
        size += (record.pushType?.utf8.count ?? 0) + (record.reason?.utf8.count ?? 0) + (record.deliveryID?.utf8.count ?? 0)
        size += ids.messageID != nil ? CanonicalUUIDText.byteCount : ids.messageName?.count ?? record.messageID?.utf8.count ?? 0
        size += ids.uniqueID == nil ? record.uniqueID?.utf8.count ?? 0 : CanonicalUUIDText.byteCount
        if let rawHeaders {
            for h in rawHeaders {
                size += 8 + h.name.utf8.count
                size += Self.isAuthorization(h.name) ? Self.redactedAuthorization.utf8.count : h.value.utf8.count
            }
        } else {
            for (name, value) in record.headers { size += 8 + name.utf8.count + value.utf8.count }
        }
        let payloadCount = body.map { min($0.count, Self.payloadPrefixBytes) } ?? record.payload.utf8.count
        size += payloadCount
        if bytes.count != size {
            if bytes.count > size {
                bytes.removeLast(bytes.count - size)
            } else {
                // Once, to the exact size: a fresh slot (the ring's first 10,000 records) grew
                // step by step through `append`'s doubling.
                bytes.reserveCapacity(size)
                bytes.append(contentsOf: repeatElement(0, count: size - bytes.count))
            }
        }
        bytes.withUnsafeMutableBufferPointer { buffer in
            var writer = ByteWriter(base: buffer.baseAddress!)
            writer.integer(record.receivedAt.timeIntervalSinceReferenceDate.bitPattern)
            writer.byte(record.service == .apns ? 0 : 1)
            writer.integer(UInt64(bitPattern: Int64(record.status)))
            writer.string(record.token); writer.string(record.device); writer.string(record.topic); writer.string(record.pushType)
            if let id = ids.messageID { writer.text(id) } else if let name = ids.messageName { writer.text(name) } else { writer.string(record.messageID) }
            writer.string(record.reason); writer.string(record.deliveryID)
            if let id = ids.uniqueID { writer.text(id) } else { writer.string(record.uniqueID) }
            if let rawHeaders {
                writer.integer(UInt32(rawHeaders.count))
                for h in rawHeaders {
                    let start = writer.offset + 4
                    writer.string(h.name)
                    // Field names are ASCII tokens: lowercase in place (HTTP/2's already are).
                    for i in start..<writer.offset where buffer[i] >= 65 && buffer[i] <= 90 { buffer[i] += 32 }
                    writer.string(Self.isAuthorization(h.name) ? Self.redactedAuthorization : h.value)
                }
            } else {
                writer.integer(UInt32(record.headers.count))
                for (name, value) in record.headers {
                    writer.string(name)
                    writer.string(value)
                }
            }
            if let body {
                writer.integer(UInt32(payloadCount))
                body.withUnsafeBufferPointer { writer.bytes(UnsafeRawPointer($0.baseAddress), count: payloadCount) }
            } else {
                writer.string(record.payload)
            }
            assert(writer.offset == size)
        }
    }

    /// `name` is `authorization` in any case (field names are ASCII; the name has only letters,
    /// so folding with 0x20 is exact).
    @inline(__always)
    private static func isAuthorization(_ name: String) -> Bool {
        guard name.utf8.count == 13 else { return false }
        // Against the literal's bytes in place: iterating the literal's UTF-8 view was most of
        // this check, which runs twice per recorded field.
        let literal: StaticString = "authorization"
        return name.utf8.withContiguousStorageIfAvailable { bytes in
            var differ: UInt8 = 0
            for k in 0..<13 { differ |= (bytes[k] | 0x20) ^ literal.utf8Start[k] }
            return differ == 0
        } ?? name.utf8.elementsEqual("authorization".utf8) { a, b in a | 0x20 == b }
    }

    /// The record as `RecordedPush.completed` gives it.
    var record: PushRecord {
        bytes.withUnsafeBufferPointer { buffer in
            var reader = Reader(buffer: buffer)
            let receivedAt = Date(timeIntervalSinceReferenceDate: Double(bitPattern: reader.uint64()))
            let service: PushRecord.Service = reader.byte() == 0 ? .apns : .fcm
            let status = Int(Int64(bitPattern: reader.uint64()))
            let token = reader.string(), device = reader.string(), topic = reader.string(), pushType = reader.string()
            let messageID = reader.string(), reason = reader.string(), deliveryID = reader.string(), uniqueID = reader.string()
            var headers: [String: String] = [:]
            for _ in 0..<reader.uint32() {
                let name = reader.string() ?? ""
                headers[name] = reader.string() ?? ""
            }
            return PushRecord(receivedAt: receivedAt, service: service, token: token, device: device, topic: topic, pushType: pushType,
                              messageID: messageID, status: status, reason: reason, deliveryID: deliveryID, headers: headers,
                              payload: reader.string() ?? "", uniqueID: uniqueID)
        }
    }

    private struct Reader {
        let buffer: UnsafeBufferPointer<UInt8>
        var offset = 0

        mutating func byte() -> UInt8 {
            defer { offset += 1 }
            return buffer[offset]
        }

        mutating func integer<T: FixedWidthInteger>(_: T.Type) -> T {
            var value: T = 0
            withUnsafeMutableBytes(of: &value) { $0.copyMemory(from: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: buffer[offset..<offset + MemoryLayout<T>.size]))) }
            offset += MemoryLayout<T>.size
            return T(littleEndian: value)
        }

        mutating func uint64() -> UInt64 { integer(UInt64.self) }
        mutating func uint32() -> UInt32 { integer(UInt32.self) }

        mutating func string() -> String? {
            let length = uint32()
            if length == PackedPush.absent { return nil }
            defer { offset += Int(length) }
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[offset..<offset + Int(length)]), as: UTF8.self)
        }
    }
}

/// The record's layout on `ByteWriter`: integers little-endian, strings length-prefixed.
private extension ByteWriter {
    @inline(__always)
    mutating func integer<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes(UnsafeRawPointer($0.baseAddress), count: MemoryLayout<T>.size) }
    }

    /// An id's 36 bytes, laid out as `string` lays out the same text.
    @inline(__always)
    mutating func text(_ id: CanonicalUUIDText) {
        integer(UInt32(CanonicalUUIDText.byteCount))
        id.withBytes { bytes(UnsafeRawPointer($0.baseAddress), count: $0.count) }
    }

    /// Text given as its UTF-8 bytes (the FCM route's message name), laid out as `string` lays out the same text.
    @inline(__always)
    mutating func text(_ utf8: ArraySlice<UInt8>) {
        integer(UInt32(utf8.count))
        utf8.withUnsafeBufferPointer { put($0) }
    }

    /// Inlined, and read through the UTF-8 view's contiguous storage (non-mutating): a
    /// record writes about twenty strings, and the call plus `withUTF8`'s closure per string
    /// was a share of the record's cost.
    @inline(__always)
    mutating func string(_ value: String?) {
        guard let value else { return integer(PackedPush.absent) }
        let utf8 = value.utf8
        let count = utf8.count
        integer(UInt32(count))
        guard count > 0 else { return }
        let start = offset
        if utf8.withContiguousStorageIfAvailable({ bytes(UnsafeRawPointer($0.baseAddress), count: $0.count) }) == nil {
            for b in utf8 { byte(b) }
        }
        assert(offset == start + count)
    }
}
