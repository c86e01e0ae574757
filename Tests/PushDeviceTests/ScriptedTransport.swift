import Foundation
import PushHTTP
import TestSupport

extension ScriptedTransport {
    /// For pure-logic lifecycle tests: `script` gets the request and how many requests came
    /// before it to the same URL; its reply comes after the reply's delay (cancellable, like the
    /// real client), which passes on `clock` (emulated time) when given, else in real time.
    /// Every feature is also tested over the real transport (NSEOverRealTransportTests).
    convenience init(clock: ManualNSEClock? = nil, _ script: @escaping @Sendable (HTTPRequest, Int) -> Reply) {
        self.init(sleep: { delay in
            if let clock { try await clock.sleep(until: clock.now() + delay) } else { try await Task.sleep(for: delay) }
        }, script: { request, call in script(request, call.earlierToSameURL) })
    }
}

/// Tiny valid images for tests.
enum TestImages {
    /// A PNG header with IHDR width × height (enough for sniffing and dimensions).
    static func png(width: Int = 640, height: Int = 320, padTo size: Int = 0) -> [UInt8] {
        var b: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
        for v in [width, height] { b += [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        b += [8, 6, 0, 0, 0, 0, 0, 0, 0]
        if b.count < size { b += [UInt8](repeating: 0, count: size - b.count) }
        return b
    }

    /// A JPEG with an SOF0 frame header.
    static func jpeg(width: Int = 800, height: Int = 600) -> [UInt8] {
        [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
            + [0xFF, 0xC0, 0x00, 0x11, 0x08, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), 3,
               1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1] + [0xFF, 0xD9]
    }

    static func gif(width: Int = 100, height: Int = 50) -> [UInt8] {
        Array("GIF89a".utf8) + [UInt8(width & 0xFF), UInt8(width >> 8), UInt8(height & 0xFF), UInt8(height >> 8), 0, 0, 0, 0x3B]
    }
}

/// Payloads for NSE tests.
enum TestPayloads {
    static func cio(image: String?, mutable: Bool = true, deliveryID: String = "RPILAgUBcRhIBqSfeiIwdIYJKxTY",
                    token: String = "0f8b3e5a1c2d4e5f8a9b0c1d2e3f4a5b") -> String {
        let push = image.map { #","CIO":{"push":{"image":"\#($0)","link":"pushlab://product/42"}}"# } ?? ""
        return #"{"aps":{"alert":{"title":"Sale","subtitle":"Today only","body":"50% off"},"sound":"default","badge":3\#(mutable ? #","mutable-content":1"# : "")},"CIO-Delivery-ID":"\#(deliveryID)","CIO-Delivery-Token":"\#(token)"\#(push)}"#
    }
}
