import Foundation
import PushCore
import PushHTTP
@testable import PushSend
import XCTest

/// A push that got no answer, or was never sent, reads the same in the report whichever
/// provider it was for (`DeliveryReport.recordFailure` / `recordNotSent`).
final class SendResultReportTests: XCTestCase {
    private let sentAt = Date(timeIntervalSince1970: 1_775_000_000)

    private func reports(_ apns: APNsSendResult.Outcome, _ fcm: FCMSendResult.Outcome) -> (DeliveryReport, DeliveryReport) {
        let a = APNsSendResult(token: String(repeating: "ab", count: 32), apnsID: "", outcome: apns, attempts: 3,
                               latency: .zero, sentAt: sentAt)
        let f = FCMSendResult(target: .token("fcm-token-1"), outcome: fcm, attempts: 3, latency: .zero, sentAt: sentAt)
        return (a.report, f.report)
    }

    func testNoAnswerIsFailedAndNamedByTheTransportError() {
        let (apns, fcm) = reports(.failed(.tlsFailed("bad certificate")), .failed(.tlsFailed("bad certificate")))
        for r in [apns, fcm] {
            XCTAssertEqual(r.outcome, .failed)
            XCTAssertEqual(r.reason, "TLSFailed")
            XCTAssertEqual(r.detail, HTTPClientError.tlsFailed("bad certificate").description)
            XCTAssertNil(r.status)
            XCTAssertFalse(r.prune)
        }
        XCTAssertEqual(apns.provider, .apns)
        XCTAssertEqual(fcm.provider, .fcm)
    }

    func testNotSentIsInvalidAndNeverPruned() {
        let (apns, fcm) = reports(.notSent("an FCM token given to APNs", reason: "NotSent:wrong-kind"),
                                  .notSent("an FCM token given to APNs", reason: "NotSent:wrong-kind"))
        for r in [apns, fcm] {
            XCTAssertEqual(r.outcome, .invalid)
            XCTAssertEqual(r.reason, "NotSent:wrong-kind")
            XCTAssertEqual(r.detail, "an FCM token given to APNs")
            XCTAssertFalse(r.prune, "never sent: the provider never said the token is dead")
        }
    }
}
