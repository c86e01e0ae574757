import XCTest
import PushCore

/// docs/specs/fcm.md "Errors": the Google RPC shape, every errorCode, details.
final class FCMErrorShapeTests: XCTestCase {
    static let specTable: [(String, Int, String, Retryability)] = [
        ("INVALID_ARGUMENT", 400, "INVALID_ARGUMENT", .never),
        ("THIRD_PARTY_AUTH_ERROR", 401, "UNAUTHENTICATED", .never),
        ("SENDER_ID_MISMATCH", 403, "PERMISSION_DENIED", .never),
        ("UNREGISTERED", 404, "NOT_FOUND", .never),
        ("QUOTA_EXCEEDED", 429, "RESOURCE_EXHAUSTED", .afterDelay),
        ("INTERNAL", 500, "INTERNAL", .withBackoff),
        ("UNAVAILABLE", 503, "UNAVAILABLE", .withBackoff),
    ]

    func testEveryErrorCodeHasItsStatusAndRetryability() {
        XCTAssertEqual(FCMErrorCode.allKnown.count, Self.specTable.count)
        for (name, http, status, retry) in Self.specTable {
            let code = FCMErrorCode(rawValue: name)
            XCTAssertEqual(code.rawValue, name)
            XCTAssertEqual(code.httpStatus, http, name)
            XCTAssertEqual(code.rpcStatus, status, name)
            XCTAssertEqual(code.retryability, retry, name)
            XCTAssertFalse(code.fix.isEmpty)
        }
        XCTAssertTrue(FCMErrorCode.unregistered.prunesToken)
    }

    func testParsesTheGoogleRPCShapeWithFcmErrorAndFieldViolations() {
        let body = #"""
        {"error": {"code": 400, "message": "Invalid value at 'message.apns.headers[0].value' (TYPE_STRING), 10",
         "status": "INVALID_ARGUMENT", "details": [
          {"@type": "type.googleapis.com/google.rpc.BadRequest",
           "fieldViolations": [{"field": "message.apns.headers[0].value", "description": "Invalid value (TYPE_STRING), 10"}]},
          {"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "INVALID_ARGUMENT"}]}}
        """#
        let e = FCMError(httpStatus: 400, body: Array(body.utf8))
        XCTAssertEqual(e.status, "INVALID_ARGUMENT")
        XCTAssertEqual(e.errorCode, .invalidArgument)
        XCTAssertEqual(e.fieldViolations, [FCMFieldViolation(field: "message.apns.headers[0].value", description: "Invalid value (TYPE_STRING), 10")])
        XCTAssertEqual(e.retryability, .never)
        XCTAssertTrue(e.message.contains("TYPE_STRING"))
    }

    func testRendersWhatItParses() {
        let e = FCMError(.unregistered, message: "Requested entity was not found.")
        let text = String(decoding: e.json, as: UTF8.self)
        XCTAssertTrue(text.contains(#""@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError""#), text)
        XCTAssertEqual(FCMError(httpStatus: 404, body: e.json), e)
        var q = FCMError(.quotaExceeded, message: "quota")
        q.quotaViolations = [FCMQuotaViolation(subject: "project", description: "per minute")]
        XCTAssertEqual(FCMError(httpStatus: 429, body: q.json), q)
    }

    func testUnknownErrorCodeIsKeptVerbatimAndNotRetried() {
        let body = #"{"error":{"code":400,"message":"m","status":"FAILED_PRECONDITION","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"SOMETHING_NEW"}]}}"#
        let e = FCMError(httpStatus: 400, body: Array(body.utf8))
        XCTAssertEqual(e.errorCode, .other("SOMETHING_NEW"))
        XCTAssertEqual(e.reasonName, "SOMETHING_NEW")
        XCTAssertEqual(e.retryability, .never)
    }

    func testBodyThatIsNotGoogleShapeKeepsStatusAndText() {
        let e = FCMError(httpStatus: 502, body: Array("<html>bad gateway</html>".utf8))
        XCTAssertNil(e.errorCode)
        XCTAssertEqual(e.retryability, .withBackoff)
        XCTAssertTrue(e.message.contains("bad gateway"))
        XCTAssertEqual(FCMError(httpStatus: 401, body: []).retryability, .renewCredentialOnce)
    }
}
