import Foundation

/// The image types iOS accepts as a notification attachment (JPEG, PNG, GIF — docs/specs/device-side.md §2)
/// plus the ones pushlab recognises in order to name them when it refuses them.
public enum ImageFormat: String, Sendable, Codable, CaseIterable {
    case jpeg, png, gif
    /// Listed in Customer.io's table but not among Apple's attachment types: may not display.
    case bmp
    case webp, heic

    public var acceptedByIOS: Bool { self == .jpeg || self == .png || self == .gif }
    public var mimeType: String { "image/\(rawValue)" }
    /// The file extension URLSession appends for this MIME type.
    public var preferredExtension: String { self == .jpeg ? "jpg" : rawValue }

    /// The type named by a file extension, the way iOS infers an attachment's type (case-insensitive).
    public static func forFileExtension(_ ext: String) -> ImageFormat? {
        switch ext.lowercased() {
        case "jpg", "jpeg", "jpe": return .jpeg
        case "png": return .png
        case "gif": return .gif
        case "bmp": return .bmp
        case "webp": return .webp
        case "heic", "heif": return .heic
        default: return nil
        }
    }

    public static func forMIMEType(_ mime: String) -> ImageFormat? {
        let base = mime.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        switch base {
        case "image/jpeg", "image/jpg", "image/pjpeg": return .jpeg
        case "image/png": return .png
        case "image/gif": return .gif
        case "image/bmp", "image/x-ms-bmp": return .bmp
        case "image/webp": return .webp
        case "image/heic", "image/heif": return .heic
        default: return nil
        }
    }

    /// The type the bytes actually are, from their magic numbers.
    public static func sniff(_ bytes: [UInt8]) -> ImageFormat? {
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + magic.count && Array(bytes[offset..<offset + magic.count]) == magic
        }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return .webp }
        if starts(Array("ftyp".utf8), at: 4), bytes.count >= 12,
           ["heic", "heix", "mif1", "msf1", "heif"].contains(String(decoding: bytes[8..<12], as: UTF8.self)) { return .heic }
        if starts(Array("BM".utf8)) { return .bmp }
        return nil
    }
}

/// Pixel dimensions read from an image header, without decoding the image.
public struct ImageDimensions: Sendable, Codable, Equatable {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Customer.io's recommended maximum for push images (docs/specs/device-side.md §2).
    public static let recommendedMaximum = ImageDimensions(width: 2048, height: 1024)

    public var exceedsRecommendation: Bool {
        width > ImageDimensions.recommendedMaximum.width || height > ImageDimensions.recommendedMaximum.height
    }

    /// Reads PNG (IHDR), GIF (logical screen) and JPEG (first SOF marker) headers.
    public static func read(_ bytes: [UInt8], format: ImageFormat) -> ImageDimensions? {
        func be16(_ i: Int) -> Int { Int(bytes[i]) << 8 | Int(bytes[i + 1]) }
        func be32(_ i: Int) -> Int { be16(i) << 16 | be16(i + 2) }
        switch format {
        case .png:
            guard bytes.count >= 24, String(decoding: bytes[12..<16], as: UTF8.self) == "IHDR" else { return nil }
            return ImageDimensions(width: be32(16), height: be32(20))
        case .gif:
            guard bytes.count >= 10 else { return nil }
            return ImageDimensions(width: Int(bytes[6]) | Int(bytes[7]) << 8, height: Int(bytes[8]) | Int(bytes[9]) << 8)
        case .jpeg:
            var i = 2
            while i + 4 <= bytes.count {
                guard bytes[i] == 0xFF else { return nil }
                let marker = bytes[i + 1]
                if marker == 0xFF { i += 1; continue }  // fill byte
                if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue }
                let length = be16(i + 2)
                // SOF0…SOF15 carry the frame size; C4 (DHT), C8 (JPG) and CC (DAC) do not.
                if (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
                    guard i + 9 <= bytes.count else { return nil }
                    return ImageDimensions(width: be16(i + 7), height: be16(i + 5))
                }
                if marker == 0xDA || length < 2 { return nil }  // start of scan before any frame header
                i += 2 + length
            }
            return nil
        default:
            return nil
        }
    }
}
