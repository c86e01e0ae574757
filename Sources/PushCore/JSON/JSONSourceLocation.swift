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
        var line = 1, column = 1
        let end = min(offset, source.count)
        var k = 0
        while k < end {
            let b = source[k]
            if b == 0x0A {
                line += 1
                column = 1
            } else if b & 0xC0 != 0x80 {
                column += 1  // count scalars, not continuation bytes
            }
            k += 1
        }
        self.init(offset: offset, line: line, column: column)
    }

    public var description: String { "\(line):\(column)" }
}
