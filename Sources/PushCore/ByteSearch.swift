import Glibc

public extension UnsafeBufferPointer<UInt8> {
    /// Index of the first `byte` in `range` of these bytes, found with `memchr` (no Swift loop
    /// over every byte: the coverage build of the fuzz targets traces each comparison of one).
    func firstIndex(of byte: UInt8, in range: Range<Int>) -> Int? {
        guard !range.isEmpty, let base = baseAddress,
              let found = memchr(base + range.lowerBound, Int32(byte), range.count) else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    /// Index of the first byte at or after `start` that ends a run of plain text inside a JSON
    /// string — a quote, a backslash, a control byte (< 0x20) or a byte ≥ 0x80 (the start of a
    /// UTF-8 sequence, which the caller validates) — or `count` when there is none. Plain bytes
    /// are passed eight at a time (`bytesEndingPlainJSONText`): JSON readers call it for every
    /// string body (the gateway's skim of each APNs body, the App Group file's salvage), and in
    /// the fuzz builds a Swift loop over every byte traces each comparison.
    func endOfPlainJSONText(from start: Int) -> Int {
        guard let base = baseAddress else { return count }
        var k = Swift.max(start, 0)
        while k + 8 <= count {
            let look = Self.bytesEndingPlainJSONText(UInt64(littleEndian: UnsafeRawPointer(base + k).loadUnaligned(as: UInt64.self)))
            if look != 0 { return k + look.trailingZeroBitCount >> 3 }
            k += 8
        }
        if k < count {
            // The last few bytes as one word padded with plain bytes (`a`), which mark nothing
            // (a borrow starts only at a byte that matched).
            var word: UInt64 = 0x6161_6161_6161_6161
            withUnsafeMutableBytes(of: &word) { $0.copyMemory(from: UnsafeRawBufferPointer(start: base + k, count: count - k)) }
            let look = Self.bytesEndingPlainJSONText(UInt64(littleEndian: word))
            if look != 0 { return k + look.trailingZeroBitCount >> 3 }
        }
        return count
    }

    /// The bytes of `word` (byte 0 in the low bits) that end a plain-text run in a JSON string —
    /// a quote, a backslash, a control byte (< 0x20), a byte ≥ 0x80 — as their high bits; zero
    /// when there is none. Only the lowest set bit is exact (a borrow can mark a byte above one
    /// that matched, never one below), and it is all `endOfPlainJSONText` reads.
    /// ByteSearchTests puts each such byte at every offset of a word.
    @inline(__always)
    static func bytesEndingPlainJSONText(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func zeroBytes(_ v: UInt64) -> UInt64 { (v &- ones) & ~v & highs }
        let control = (word &- 0x20 &* ones) & ~word & highs  // bytes < 0x20
        return (word & highs) | control
            | zeroBytes(word ^ (UInt64(UInt8(ascii: "\"")) &* ones))
            | zeroBytes(word ^ (UInt64(UInt8(ascii: "\\")) &* ones))
    }
}

/// The same searches on an array, for modules that keep unsafe pointers out (style.md).
public extension Array<UInt8> {
    /// `UnsafeBufferPointer.firstIndex(of:in:)`: the first `byte` in `range`, by `memchr`.
    func firstIndex(of byte: UInt8, in range: Range<Int>) -> Int? {
        withUnsafeBufferPointer { $0.firstIndex(of: byte, in: range) }
    }

    /// `UnsafeBufferPointer.endOfPlainJSONText(from:)`: the first quote, backslash, control
    /// byte or byte ≥ 0x80 at or after `start`, or `count`.
    func endOfPlainJSONText(from start: Int) -> Int {
        withUnsafeBufferPointer { $0.endOfPlainJSONText(from: start) }
    }

    /// Whether the bytes at `offset` are `literal`'s UTF-8: a key or a fixed piece of a format,
    /// with no Swift loop over each byte. Inlined where it is called, so the literal's length and
    /// bytes are constants there: a literal of up to 16 bytes is compared as one or two 64-bit
    /// words (each a single comparison), a longer one with `memcmp`. ByteSearchTests compares it
    /// with `elementsEqual` for every length up to 24, a byte changed at every position.
    @inlinable @inline(__always)
    func hasBytes(_ literal: StaticString, at offset: Int) -> Bool {
        let n = literal.utf8CodeUnitCount
        // offset >= 0 and offset + n <= count: one unsigned comparison once n fits.
        guard n <= count, UInt(bitPattern: offset) <= UInt(count - n) else { return false }
        guard n > 0 else { return true }
        return withUnsafeBufferPointer { b in
            literal.withUTF8Buffer { l in
                let p = UnsafeRawPointer(b.baseAddress! + offset), q = UnsafeRawPointer(l.baseAddress!)
                if n <= 8 { return Self.word(p, n) == Self.word(q, n) }
                if n <= 16 { return Self.word(p, 8) == Self.word(q, 8) && Self.word(p + 8, n - 8) == Self.word(q + 8, n - 8) }
                return memcmp(p, q, n) == 0
            }
        }
    }

    /// The `n` (1...8) bytes at `p` as one word, zero-padded (the same padding on both sides of
    /// a comparison).
    @usableFromInline @inline(__always)
    internal static func word(_ p: UnsafeRawPointer, _ n: Int) -> UInt64 {
        var w: UInt64 = 0
        Swift.withUnsafeMutableBytes(of: &w) { $0.copyMemory(from: UnsafeRawBufferPointer(start: p, count: n)) }
        return w
    }
}
