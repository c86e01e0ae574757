import Foundation

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
