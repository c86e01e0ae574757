import Foundation

/// Walks DER tag-length-value items (definite lengths only, as DER requires).
struct DERReader {
    private let bytes: [UInt8]
    private var index = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func next() -> (tag: UInt8, body: [UInt8])? {
        guard index + 2 <= bytes.count else { return nil }
        let tag = bytes[index]
        var length = Int(bytes[index + 1])
        index += 2
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard count > 0, count <= 4, index + count <= bytes.count else { return nil }
            length = bytes[index..<index + count].reduce(0) { $0 << 8 | Int($1) }
            index += count
        }
        guard length >= 0, index + length <= bytes.count else { return nil }
        defer { index += length }
        return (tag, Array(bytes[index..<index + length]))
    }
}
