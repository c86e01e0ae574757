import Glibc

public extension UnsafeBufferPointer<UInt8> {
    /// Index of the first `byte` in `range` of these bytes, found with `memchr` (no Swift loop
    /// over every byte: the coverage build of the fuzz targets traces each comparison of one).
    func firstIndex(of byte: UInt8, in range: Range<Int>) -> Int? {
        guard !range.isEmpty, let base = baseAddress,
              let found = memchr(base + range.lowerBound, Int32(byte), range.count) else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }
}
