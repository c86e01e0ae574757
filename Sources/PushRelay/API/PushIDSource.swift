import Foundation

/// Push ids: `p_` + 10 base-32 characters of milliseconds + 16 random ones, so ids sort by time.
final class PushIDSource: Sendable {
    private static let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz".utf8)

    func next() -> PushID {
        var out: [UInt8] = Array("p_".utf8)
        var ms = UInt64(Date().timeIntervalSince1970 * 1000)
        var time = [UInt8](repeating: 0, count: 10)
        for i in (0..<10).reversed() {
            time[i] = Self.alphabet[Int(ms & 31)]
            ms >>= 5
        }
        out += time
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<16 { out.append(Self.alphabet[Int(generator.next() & 31)]) }
        return PushID(String(decoding: out, as: UTF8.self))
    }
}
