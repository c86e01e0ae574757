import Foundation
import PushDevice

/// A damage-and-recover case decoded from fuzz bytes:
///
///     byte 0        rows (1...8)
///     per row       1 length byte + that many bytes of delivery id (any bytes: escaping is
///                   exercised), 16 bytes of UUID, 4 bytes of timestamp (seconds since 1970)
///     damage        1 kind byte (truncate / overwrite / insert), 2 offset bytes, then the
///                   garbage bytes (the rest of the input)
///
/// Missing bytes read as zero, so every input is a case.
struct AppGroupFileCase {
    var rows: [PendingDeliveryMetric] = []
    var damage: Damage

    enum Damage {
        case truncate(at: Int)
        case overwrite(at: Int, with: [UInt8])
        case insert(at: Int, [UInt8])

        /// The damaged file, and whether the damage touched a byte range of the original file.
        func apply(to file: [UInt8]) -> ([UInt8], touches: (Range<Int>) -> Bool) {
            switch self {
            case .truncate(let at):
                let p = at % (file.count + 1)
                return (Array(file[..<p]), { $0.upperBound > p })
            case .overwrite(let at, let garbage):
                let p = at % (file.count + 1)
                let end = min(file.count, p + garbage.count)
                var out = file
                out.replaceSubrange(p..<end, with: garbage.prefix(end - p))
                return (out, { $0.overlaps(p..<end) })
            case .insert(let at, let garbage):
                let p = at % (file.count + 1)
                var out = file
                out.insert(contentsOf: garbage, at: p)
                // Inserting strictly inside a row touches it; at a row's edge it does not.
                return (out, { !garbage.isEmpty && $0.lowerBound < p && p < $0.upperBound })
            }
        }
    }

    init(_ bytes: [UInt8]) {
        var reader = Reader(bytes: bytes)
        let count = 1 + Int(reader.byte()) % 8
        for i in 0..<count {
            let id = reader.bytes(Int(reader.byte()) % 48)
            let uuidBytes = reader.bytes(16) + [UInt8](repeating: 0, count: 16)
            let uuid = UUID(uuid: (uuidBytes[0], uuidBytes[1], uuidBytes[2], uuidBytes[3], uuidBytes[4], uuidBytes[5], uuidBytes[6],
                                   uuidBytes[7], uuidBytes[8], uuidBytes[9], uuidBytes[10], uuidBytes[11], uuidBytes[12],
                                   uuidBytes[13], uuidBytes[14], uuidBytes[15]))
            let seconds = reader.bytes(4).reduce(0) { $0 << 8 | UInt32($1) }
            rows.append(PendingDeliveryMetric(id: uuid, deliveryID: String(decoding: id, as: UTF8.self), deviceID: "device-\(i)",
                                              timestamp: Date(timeIntervalSince1970: TimeInterval(seconds))))
        }
        let kind = reader.byte() % 3
        let at = Int(reader.byte()) << 8 | Int(reader.byte())
        let garbage = reader.rest()
        switch kind {
        case 0: damage = .truncate(at: at)
        case 1: damage = .overwrite(at: at, with: garbage)
        default: damage = .insert(at: at, garbage)
        }
    }

    /// The row as the file holds it (whole-second timestamp).
    static func wholeSeconds(_ row: PendingDeliveryMetric) -> PendingDeliveryMetric {
        var r = row
        r.timestamp = Date(timeIntervalSince1970: r.timestamp.timeIntervalSince1970.rounded(.down))
        return r
    }

    struct Reader {
        let bytes: [UInt8]
        var position = 0
        mutating func byte() -> UInt8 {
            defer { position += 1 }
            return position < bytes.count ? bytes[position] : 0
        }
        mutating func bytes(_ n: Int) -> [UInt8] {
            let end = min(bytes.count, position + n)
            let out = position < end ? Array(bytes[position..<end]) : []
            position += n
            return out
        }
        mutating func rest() -> [UInt8] {
            defer { position = bytes.count }
            return position < bytes.count ? Array(bytes[position...]) : []
        }
    }
}
