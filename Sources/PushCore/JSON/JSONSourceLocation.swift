import Foundation

/// A position in a source text: 0-based byte offset, 1-based line and column (in characters).
public struct JSONSourceLocation: Sendable, Hashable, Codable, CustomStringConvertible {
    public var offset: Int
    public var line: Int
    public var column: Int

    public init(offset: Int, line: Int, column: Int) {
        self.offset = offset
        self.line = line
        self.column = column
    }

    /// Computes line and column for `offset` by scanning `source` (only done when reporting).
    public init(offset: Int, in source: [UInt8]) {
        var counter = JSONLineCounter()
        source.withUnsafeBufferPointer { counter.advance(to: offset, in: $0) }
        self.init(offset: offset, line: counter.line, column: counter.column)
    }

    public var description: String { "\(line):\(column)" }
}

/// Line and column of a byte offset, moved forward through a source: a line feed starts a new
/// line at column 1, and every byte that does not continue a UTF-8 sequence (`b & 0xC0 != 0x80`)
/// is one column (columns count scalars, not bytes). The bytes are read eight at a time: the
/// validator places every finding of a report with it, and a loop over each byte of a large
/// document cost more than the checks themselves (in the fuzz builds each of its comparisons
/// is traced, too). JSONSourceLocationTests holds it against that byte loop.
struct JSONLineCounter {
    /// The offset reached; `line` and `column` are those of the byte there.
    private(set) var offset = 0
    private(set) var line = 1
    private(set) var column = 1

    /// Moves to `target` (clamped to `buf.count`; never backwards).
    mutating func advance(to target: Int, in buf: UnsafeBufferPointer<UInt8>) {
        let end = min(target, buf.count)
        guard offset < end, let base = buf.baseAddress else { return }
        var k = offset
        var counted = offset  // the bytes from here to `end` are columns of the current line
        var continuations = 0  // among them
        while k < end {
            let n = min(8, end - k)
            var word: UInt64 = 0  // a short last word is padded with zero bytes: no line feed, no continuation
            if n == 8 {
                word = UInt64(littleEndian: UnsafeRawPointer(base + k).loadUnaligned(as: UInt64.self))
            } else {
                withUnsafeMutableBytes(of: &word) { $0.copyMemory(from: UnsafeRawBufferPointer(start: base + k, count: n)) }
                word = UInt64(littleEndian: word)
            }
            var starts = Self.continuationBytes(word)
            let feeds = Self.zeroBytes(word ^ 0x0A0A_0A0A_0A0A_0A0A)
            if feeds != 0 {
                line += feeds.nonzeroBitCount
                column = 1
                let last = (63 - feeds.leadingZeroBitCount) >> 3  // the word's last line feed (byte 0 is the lowest)
                counted = k + last + 1
                continuations = 0
                starts = last == 7 ? 0 : starts & (~0 &<< UInt64((last + 1) * 8))
            }
            continuations += starts.nonzeroBitCount
            k += n
        }
        column += end - counted - continuations
        offset = end
    }

    /// The high bit of each byte of `word` that is `10xxxxxx` (bit 7 set, bit 6 clear). Exact for
    /// every byte: nothing carries from one byte into the next.
    @inline(__always)
    static func continuationBytes(_ word: UInt64) -> UInt64 {
        word & ~(word &<< 1) & 0x8080_8080_8080_8080
    }

    /// The high bit of each zero byte of `word`. Exact for every byte (`b & 0x7F + 0x7F` stays
    /// below 0x100, so nothing carries), unlike the shorter borrow form.
    @inline(__always)
    static func zeroBytes(_ word: UInt64) -> UInt64 {
        let lows: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        return ~(((word & lows) &+ lows) | word | lows)
    }
}
