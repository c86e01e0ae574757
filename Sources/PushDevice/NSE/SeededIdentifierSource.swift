import Foundation
import PushCore
import PushHTTP

/// Reproducible identifiers from a `SeededRandom`. Thread-safe.
public final class SeededIdentifierSource: IdentifierSource, Sendable {
    private let random: SanitizerVisibleMutex<SeededRandom>

    public init(seed: UInt64) { random = SanitizerVisibleMutex(SeededRandom(seed: seed)) }

    public func uuid() -> UUID {
        random.withLock { random in
            var bytes = (0..<16).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            bytes[6] = (bytes[6] & 0x0F) | 0x40  // version 4
            bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 4122 variant
            return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                               bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        }
    }

    public func lowercaseLetters(_ count: Int) -> String {
        random.withLock { random in String((0..<count).map { _ in Character(UnicodeScalar(UInt8(97 + random.next() % 26))) }) }
    }
}
