import Foundation
import XCTest
import PushCore

/// `FCMError.json` is written by hand; it must give exactly the bytes `JSONEncoder`
/// (`.sortedKeys, .withoutEscapingSlashes`) gives for the Google RPC envelope, the way the
/// emulator rendered errors before (the envelope types below mirror that encoder's input).
final class FCMErrorJSONTests: XCTestCase {
    private struct Envelope: Encodable { var error: Body }
    private struct Body: Encodable {
        var code: Int?
        var message: String?
        var status: String?
        var details: [Detail]?
    }
    private struct Detail: Encodable {
        var type: String?
        var errorCode: String?
        var fieldViolations: [FCMFieldViolation]?
        var violations: [FCMQuotaViolation]?
        enum CodingKeys: String, CodingKey { case type = "@type", errorCode, fieldViolations, violations }
    }

    private func encoderJSON(_ e: FCMError) throws -> [UInt8] {
        var details: [Detail] = []
        if let c = e.errorCode { details.append(Detail(type: FCMError.fcmErrorType, errorCode: c.rawValue)) }
        if !e.fieldViolations.isEmpty { details.append(Detail(type: FCMError.badRequestType, fieldViolations: e.fieldViolations)) }
        if !e.quotaViolations.isEmpty { details.append(Detail(type: FCMError.quotaFailureType, violations: e.quotaViolations)) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(Envelope(error: Body(code: e.httpStatus, message: e.message, status: e.status, details: details))))
    }

    /// Every byte below 0x80 (controls, quote, backslash, slash), non-ASCII and an emoji.
    static let awkward: [String] = [
        "", "plain", String((0..<0x80).map { Character(Unicode.Scalar(UInt8($0))) }), "\"quoted\" \\ back/slash",
        "é ü 日本 \u{2028}\u{2029} \u{7F}", "👍🏽 e\u{301}", "message.android.ttl: Invalid value 'x' (TYPE_STRING)",
    ]

    func testHandWrittenJSONIsTheEncodersBytes() throws {
        var errors: [FCMError] = []
        for code in FCMErrorCode.allKnown + [.other("SOMETHING_NEW"), .other("we\"ird\n")] {
            for text in Self.awkward { errors.append(FCMError(code, message: text)) }
        }
        for text in Self.awkward {
            errors.append(FCMError(httpStatus: 401, status: "UNAUTHENTICATED", message: text))
            errors.append(FCMError(.invalidArgument, message: "bad", fieldViolations: [FCMFieldViolation(field: text, description: text)]))
            errors.append(FCMError(httpStatus: 429, status: text, message: text, errorCode: .quotaExceeded,
                                   fieldViolations: [FCMFieldViolation(field: "a", description: "b"), FCMFieldViolation(field: text, description: "")],
                                   quotaViolations: [FCMQuotaViolation(), FCMQuotaViolation(subject: text), FCMQuotaViolation(description: text),
                                                     FCMQuotaViolation(subject: "s", description: text)]))
        }
        errors.append(FCMError(httpStatus: -1, status: "", message: "", quotaViolations: [FCMQuotaViolation()]))
        errors.append(FCMError(httpStatus: Int.max, status: "X", message: "y"))
        for e in errors {
            let expected = try encoderJSON(e)
            XCTAssertEqual(String(decoding: e.json, as: UTF8.self), String(decoding: expected, as: UTF8.self))
            XCTAssertEqual(e.json, expected)
        }
        // And the sender reads it back.
        let read = FCMError(httpStatus: 429, body: errors[errors.count - 3].json)
        XCTAssertEqual(read, errors[errors.count - 3])
    }
}
