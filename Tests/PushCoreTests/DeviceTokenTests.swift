import XCTest
@testable import PushCore

/// Device-token shapes and the APNs/FCM mix-ups (docs/specs/fcm.md "Token shapes").
final class DeviceTokenTests: XCTestCase {
    static let apnsToken = String(repeating: "a1b2c3d4", count: 8)
    static let fcmToken = "dQw4w9WgXcQ:APA91bH" + String(repeating: "x_Y-z0", count: 24)

    func testClassifiesAPNsHex() {
        XCTAssertEqual(DeviceToken.classify(Self.apnsToken), .apns)
        XCTAssertEqual(DeviceToken.classify(Self.apnsToken.uppercased()), .apns)
        XCTAssertEqual(DeviceToken.classify(Self.apnsToken + "00112233445566778899aabbccddeeff"), .apns, "longer tokens are allowed")
    }

    /// `isAPNsHex` against its definition, byte by byte: every byte value at the first, a middle
    /// and the last position of a 64-digit token (the gateway's table of non-hex bytes must
    /// have exactly the hex digits clear), plus the length rules.
    func testIsAPNsHexAcceptsExactlyAnEvenRunOfHexDigits() {
        let base = Array("0123456789abcdefABCDEF".utf8)
        let token = (0..<64).map { base[$0 % base.count] }
        XCTAssertTrue(DeviceToken.isAPNsHex(String(decoding: token, as: UTF8.self)))
        for position in [0, 31, 63] {
            for value in 0...255 {
                var bytes = token
                bytes[position] = UInt8(value)
                let text = String(decoding: bytes, as: UTF8.self)
                let want = text.utf8.count == 64 && text.utf8.allSatisfy(DeviceToken.isHexDigit)
                XCTAssertEqual(DeviceToken.isAPNsHex(text), want, "byte 0x\(String(value, radix: 16)) at \(position)")
            }
        }
        XCTAssertFalse(DeviceToken.isAPNsHex(String(repeating: "a", count: 62)), "shorter than 64")
        XCTAssertFalse(DeviceToken.isAPNsHex(String(repeating: "a", count: 65)), "odd length")
        XCTAssertTrue(DeviceToken.isAPNsHex(String(repeating: "F", count: 200)))
    }

    /// `isAPNsHex` stops at the first 16-byte block with a non-hex byte: a non-hex byte in any
    /// block, the last (partial) one included, makes it false.
    func testIsAPNsHexRefusesANonHexByteAtEveryPosition() {
        let token = Array(String(repeating: "0123456789abcDEF", count: 7).utf8.prefix(100))
        XCTAssertTrue(DeviceToken.isAPNsHex(String(decoding: token, as: UTF8.self)))
        for position in token.indices {
            for value: UInt8 in [0x00, 0x2F, 0x3A, 0x40, 0x47, 0x60, 0x67, 0x7F, 0xC3] {
                var bytes = token
                bytes[position] = value
                let text = String(decoding: bytes, as: UTF8.self)
                XCTAssertFalse(DeviceToken.isAPNsHex(text), "byte 0x\(String(value, radix: 16)) at \(position)")
            }
        }
    }

    /// `isFCMShape` sums one table entry per byte: every byte value at the start, the colon's
    /// place, the middle and the end of a registration token, against the rule spelled out
    /// (URL-safe bytes and one inner colon, or none and the legacy `APA91b` prefix).
    func testIsFCMShapeAcceptsExactlyURLSafeBytesAndOneInnerColon() {
        let token = Array(Self.fcmToken.utf8)
        func expected(_ bytes: [UInt8]) -> Bool {
            guard bytes.allSatisfy({ DeviceToken.isURLSafe($0) || $0 == UInt8(ascii: ":") }) else { return false }
            let colons = bytes.filter { $0 == UInt8(ascii: ":") }.count
            if colons == 1 { return bytes.first != UInt8(ascii: ":") && bytes.last != UInt8(ascii: ":") }
            return colons == 0 && bytes.starts(with: Array("APA91b".utf8))
        }
        for position in [0, 11, 80, token.count - 1] {
            for value in 0...255 {
                var bytes = token
                bytes[position] = UInt8(value)
                guard let text = String(validating: bytes, as: UTF8.self) else { continue }
                XCTAssertEqual(DeviceToken.isFCMShape(text), expected(bytes), "byte 0x\(String(value, radix: 16)) at \(position)")
            }
        }
        let legacy = "APA91b" + String(repeating: "Ab-_", count: 36)
        XCTAssertTrue(DeviceToken.isFCMShape(legacy))
        XCTAssertFalse(DeviceToken.isFCMShape(legacy + ":x:y"), "two colons")
        XCTAssertFalse(DeviceToken.isFCMShape(String(repeating: ":", count: 120)), "colons only")
        XCTAssertTrue(DeviceToken.isFCMShape(String(repeating: "a", count: 2000) + ":" + String(repeating: "b", count: 2095)), "4096 bytes")
        XCTAssertFalse(DeviceToken.isFCMShape(String(repeating: "a", count: 2000) + ":" + String(repeating: "b", count: 2096)), "4097 bytes")
    }

    func testClassifiesFCMRegistrationToken() {
        XCTAssertEqual(Self.fcmToken.count, 163)
        XCTAssertEqual(DeviceToken.classify(Self.fcmToken), .fcm)
        XCTAssertEqual(DeviceToken.classify("APA91b" + String(repeating: "Ab-_", count: 36)), .fcm, "legacy colon-free token")
    }

    func testClassifiesInvalid() {
        XCTAssertEqual(DeviceToken.classify(""), .invalid)
        XCTAssertEqual(DeviceToken.classify(String(Self.apnsToken.dropLast())), .invalid)
        XCTAssertEqual(DeviceToken.classify("short:token"), .invalid)
        XCTAssertEqual(DeviceToken.classify(Self.fcmToken + " "), .invalid)
    }

    func testAPNsTokenSentToFCMIsExplained() throws {
        let p = try XCTUnwrap(DeviceToken.problem(Self.apnsToken, for: .fcm))
        XCTAssertEqual(p.code, .apnsTokenSentToFCM)
        XCTAssertTrue(p.message.contains("this is an APNs device token; FCM needs the FCM registration token") ||
                      p.message.contains("FCM needs the FCM registration token"), p.message)
    }

    func testFCMTokenSentToAPNsIsExplained() throws {
        let p = try XCTUnwrap(DeviceToken.problem(Self.fcmToken, for: .apns))
        XCTAssertEqual(p.code, .fcmTokenSentToAPNs)
        XCTAssertTrue(p.fix.contains("BadDeviceToken"))
    }

    func testMatchingShapesHaveNoProblem() {
        XCTAssertNil(DeviceToken.problem(Self.apnsToken, for: .apns))
        XCTAssertNil(DeviceToken.problem(Self.fcmToken, for: .fcm))
    }

    func testDecoratedAPNsTokenIsExplained() throws {
        let spaced = "<" + stride(from: 0, to: 64, by: 8).map { i in
            String(Self.apnsToken.dropFirst(i).prefix(8))
        }.joined(separator: " ") + ">"
        XCTAssertEqual(DeviceToken.problem(spaced, for: .apns)?.code, .decorated)
        XCTAssertEqual(DeviceToken.problem(String(Self.apnsToken.dropLast()), for: .apns)?.code, .oddLength)
        XCTAssertEqual(DeviceToken.problem("abcd", for: .apns)?.code, .tooShort)
        XCTAssertEqual(DeviceToken.problem("not-hex", for: .apns)?.code, .badCharacters)
        XCTAssertEqual(DeviceToken.problem("", for: .fcm)?.code, .empty)
        XCTAssertEqual(DeviceToken.problem("abc:def", for: .fcm)?.code, .unrecognised)
    }

    func testRedactedShowsOnlyEightCharacters() {
        XCTAssertEqual(DeviceToken.redacted(Self.apnsToken), "a1b2c3d4…")
    }
}
