import PushCore
import XCTest

/// The `fid` target's shape (docs/specs/fcm.md "`fid` beside `token`"): 22 base64url
/// characters whose first is c, d, e or f; and the mix-ups with tokens told apart.
final class FirebaseInstallationIDTests: XCTestCase {
    func testA22CharacterBase64URLStringStartingWithCDEOrFIsAnFID() {
        for fid in ["cAbCdEfGhIjKlMnOpQrStU", "dQw4w9WgXcQpZ7k3mB2x_A", "eeeeeeeeeeeeeeeeeeeee-", "f0000000000000000000_0"] {
            XCTAssertTrue(FirebaseInstallationID.isValid(fid), fid)
            XCTAssertNil(FCMTarget.fid(fid).problem, fid)
        }
    }

    func testAWrongFirstCharacterLengthOrAlphabetIsNotAnFID() {
        for fid in ["aW1hZ2luYXJ5LWluc3RhbG", "gAbCdEfGhIjKlMnOpQrStU", "dQw4w9WgXcQpZ7k3mB2x_", "dQw4w9WgXcQpZ7k3mB2x_AB",
                    "dQw4w9WgXcQpZ7k3mB2x+A", "dQw4w9WgXcQpZ7k3mB2x/A", ""] {
            XCTAssertFalse(FirebaseInstallationID.isValid(fid), fid)
            XCTAssertNotNil(FCMTarget.fid(fid).problem, fid)
        }
    }

    func testARegistrationTokenGivenAsFIDAndAnFIDGivenAsTokenAreNamed() throws {
        let token = "dQw4w9WgXcQ:APA91b" + String(repeating: "Kq7", count: 40)
        let asFID = try XCTUnwrap(FirebaseInstallationID.problem(token))
        XCTAssertTrue(asFID.message.contains("FCM registration token"), asFID.message)
        let apns = try XCTUnwrap(FirebaseInstallationID.problem(String(repeating: "ab", count: 32)))
        XCTAssertTrue(apns.message.contains("APNs device token"), apns.message)
        let asToken = try XCTUnwrap(DeviceToken.problem("dQw4w9WgXcQpZ7k3mB2x_A", for: .fcm))
        XCTAssertTrue(asToken.message.contains("Firebase Installation ID"), asToken.message)
        XCTAssertTrue(asToken.fix.contains("fid"), asToken.fix)
    }

    func testExactlyOneOfFidTokenTopicConditionIsATarget() throws {
        let both = try JSONDocument.parse(Array(#"{"message": {"fid": "dQw4w9WgXcQpZ7k3mB2x_A", "topic": "news"}}"#.utf8))
        let report = Validator().validate(both, as: .fcm)
        XCTAssertEqual(report.errors.map(\.ruleID), ["fcm.target.count"])
        let fid = try JSONDocument.parse(Array(#"{"message": {"fid": "dQw4w9WgXcQpZ7k3mB2x_A", "notification": {"title": "Hi"}}}"#.utf8))
        XCTAssertEqual(Validator().validate(fid, as: .fcm).findings.map(\.ruleID), [])
        XCTAssertEqual(FCMSendRequest(json: fid.root)?.message.target, .fid("dQw4w9WgXcQpZ7k3mB2x_A"))
    }
}
