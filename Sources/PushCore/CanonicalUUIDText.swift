import Foundation

/// The 36 bytes of a canonical UUID's text (8-4-4-4-12 hex digits, `APNsID.isCanonical(bytes:)`),
/// held inline: no heap storage, so making, copying and keeping one allocates nothing. The
/// gateway emulator's `apns-id` and `apns-unique-id` travel in this form from the request (or
/// `RandomUUIDSource`) to the answer's header block and the push record; a `String` is made
/// only when someone reads one (`string`). The bytes are kept exactly as given, letter case
/// included (APNs echoes the id it got).
public struct CanonicalUUIDText: Sendable, Hashable, CustomStringConvertible {
    /// Four words and a half: exactly 36 bytes.
    @usableFromInline var storage: (UInt64, UInt64, UInt64, UInt64, UInt32) = (0, 0, 0, 0, 0)

    public static let byteCount = APNsID.canonicalLength

    /// The text of `bytes` when it is a canonical UUID; nil for anything else.
    public init?(bytes: UnsafeBufferPointer<UInt8>) {
        guard APNsID.isCanonical(bytes: bytes) else { return nil }
        withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: UnsafeRawBufferPointer(bytes)) }
    }

    /// The text of `text` when it is a canonical UUID; nil for anything else. Read in place
    /// when the string's bytes are contiguous (a native string's are).
    public init?(_ text: String) {
        guard text.utf8.count == Self.byteCount else { return nil }
        let read = text.utf8.withContiguousStorageIfAvailable { Self(bytes: $0) }
        guard let id = read ?? Array(text.utf8).withUnsafeBufferPointer({ Self(bytes: $0) }) else { return nil }
        self = id
    }

    /// The bytes of `text`, which passed `APNsID.isCanonical` already (`APNsID.text`).
    init(canonical text: String) {
        assert(APNsID.isCanonical(text))
        var text = text
        text.withUTF8 { bytes in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: UnsafeRawBufferPointer(bytes)) } }
    }

    /// Text written by `write` into the 36 bytes, which the caller makes canonical
    /// (`RandomUUIDSource`).
    init(writing write: (UnsafeMutablePointer<UInt8>) -> Void) {
        withUnsafeMutableBytes(of: &storage) { write($0.baseAddress!.assumingMemoryBound(to: UInt8.self)) }
    }

    /// The 36 bytes, for the time of `body`.
    @inlinable
    public func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try withUnsafeBytes(of: storage) { try body($0.bindMemory(to: UInt8.self)) }
    }

    /// The text as a string (36 bytes: a heap string, made only here).
    public var string: String {
        withBytes { bytes in String(unsafeUninitializedCapacity: Self.byteCount) { _ = $0.initialize(from: bytes); return Self.byteCount } }
    }

    public var description: String { string }

    public static func == (a: Self, b: Self) -> Bool {
        a.storage.0 == b.storage.0 && a.storage.1 == b.storage.1 && a.storage.2 == b.storage.2
            && a.storage.3 == b.storage.3 && a.storage.4 == b.storage.4
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(storage.0); hasher.combine(storage.1); hasher.combine(storage.2)
        hasher.combine(storage.3); hasher.combine(storage.4)
    }
}
