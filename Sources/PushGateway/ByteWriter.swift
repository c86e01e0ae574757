/// A cursor over a buffer its caller sized: the FCM answer and the packed records are counted
/// first, then written in place with `memcpy`, no capacity check per byte and no closure
/// capturing the offset (a captured `var` cost a dynamic exclusivity check per write).
struct ByteWriter {
    let base: UnsafeMutablePointer<UInt8>
    var offset = 0

    init(base: UnsafeMutablePointer<UInt8>) { self.base = base }

    @inline(__always)
    mutating func byte(_ value: UInt8) {
        base[offset] = value
        offset += 1
    }

    @inline(__always)
    mutating func bytes(_ source: UnsafeRawPointer?, count: Int) {
        if count > 0 { UnsafeMutableRawPointer(base + offset).copyMemory(from: source!, byteCount: count) }
        offset += count
    }

    @inline(__always)
    mutating func put(_ text: UnsafeBufferPointer<UInt8>) { bytes(UnsafeRawPointer(text.baseAddress), count: text.count) }

    @inline(__always)
    mutating func put(_ text: StaticString) { bytes(UnsafeRawPointer(text.utf8Start), count: text.utf8CodeUnitCount) }

    /// Reverses the bytes written from `start` on (digits are produced lowest first).
    mutating func reverse(from start: Int) {
        var a = start, b = offset - 1
        while a < b { (base[a], base[b]) = (base[b], base[a]); a += 1; b -= 1 }
    }
}
