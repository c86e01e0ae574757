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
