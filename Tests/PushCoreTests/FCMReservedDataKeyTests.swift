import XCTest
@testable import PushCore

/// `FCMChecks.isReservedDataKey`: `from`, `gcm` and `google…` in any case (docs/specs/fcm.md),
/// ASCII keys folded byte by byte, any other key by Unicode's fold and comparison.
final class FCMReservedDataKeyTests: XCTestCase {
    func testFromGcmAndGooglePrefixAreReservedInAnyCase() {
        for key in ["from", "FROM", "fRoM", "gcm", "GCM", "gCm", "google", "GOOGLE", "Google.c.a", "google.message_id"] {
            XCTAssertTrue(FCMChecks.isReservedDataKey(key), key)
        }
    }

    func testOtherKeysAreNotReserved() {
        for key in ["", "k", "fro", "froms", "xfrom", "gc", "gcmx", "goog", "googl", "xgoogle", "f@om", "FROM ", " gcm", "GOOGL3",
                    "CIO-Delivery-ID", "fröm", "ｆrom", "googlé", "GOOGLE\u{301}", "google\u{301}x"] {
            XCTAssertFalse(FCMChecks.isReservedDataKey(key), key)
        }
    }
}
