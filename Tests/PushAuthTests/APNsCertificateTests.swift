import Foundation
import PushAuth
import TestSupport
import XCTest

/// Reading APNs provider certificates: topics, environments, validity, and every load error.
final class APNsCertificateTests: XCTestCase {
    private let p12 = Fixtures.path("certs/apns-client.p12")
    private let pem = Fixtures.path("certs/apns-client.pem")
    private let key = Fixtures.path("certs/apns-client.key")

    func testP12AndPEMGiveTheSameTopicsAndBothEnvironments() throws {
        let fromP12 = try APNsClientCertificate.load(pkcs12: p12, password: "pushlab-dev")
        let fromPEM = try APNsClientCertificate.load(pem: pem, key: key)
        for c in [fromP12, fromPEM] {
            XCTAssertEqual(c.facts.bundleID, "io.pushlab.demo")
            XCTAssertEqual(c.facts.topics, ["io.pushlab.demo", "io.pushlab.demo.voip", "io.pushlab.demo.complication"])
            XCTAssertEqual(c.facts.environments, [.sandbox, .production])
            XCTAssertNil(c.problem(topic: "io.pushlab.demo.voip", environment: .production))
        }
        XCTAssertEqual(fromP12.facts, fromPEM.facts)
    }

    func testSandboxOnlyExpiredAndUncoveredTopicAreProblemsWithFixes() throws {
        let sandbox = try APNsClientCertificate.load(pem: Fixtures.path("certs/apns-client-sandbox.pem"), key: Fixtures.path("certs/apns-client-sandbox.key"))
        XCTAssertEqual(sandbox.facts.environments, [.sandbox])
        XCTAssertEqual(sandbox.problem(topic: "io.pushlab.demo", environment: .production),
                       .wrongEnvironment(source: sandbox.source, has: "sandbox", wanted: .production))
        let expired = try APNsClientCertificate.load(pem: Fixtures.path("certs/apns-client-expired.pem"), key: Fixtures.path("certs/apns-client-expired.key"))
        guard case .expired? = expired.problem(topic: nil, environment: nil) else { return XCTFail("an expired certificate must be refused") }
        let good = try APNsClientCertificate.load(pem: pem, key: key)
        let uncovered = good.problem(topic: "com.other.app", environment: .sandbox)
        guard case .topicNotCovered(_, "com.other.app", _)? = uncovered else { return XCTFail("\(String(describing: uncovered))") }
        XCTAssertTrue(uncovered!.fix.contains("--topic"))
    }

    func testLoadErrorsNameTheFileAndNeverTheSecret() throws {
        XCTAssertThrowsError(try APNsClientCertificate.load(pkcs12: p12, password: "not-it")) { error in
            XCTAssertEqual(error as? APNsCertificateError, .wrongPassword(source: p12))
            XCTAssertFalse("\(error)".contains("not-it"), "the password is never shown")
        }
        XCTAssertThrowsError(try APNsClientCertificate.load(pkcs12: pem, password: "")) {
            XCTAssertEqual($0 as? APNsCertificateError, .notPKCS12(source: pem))
        }
        XCTAssertThrowsError(try APNsClientCertificate.load(pem: pem, key: Fixtures.path("certs/apns-client-sandbox.key"))) {
            XCTAssertEqual($0 as? APNsCertificateError, .keyDoesNotMatch(certificate: pem, key: Fixtures.path("certs/apns-client-sandbox.key")))
        }
        XCTAssertThrowsError(try APNsClientCertificate.load(pem: pem, key: nil)) {
            XCTAssertEqual($0 as? APNsCertificateError, .noPrivateKey(source: pem), "a certificate alone cannot authenticate")
        }
        XCTAssertThrowsError(try APNsClientCertificate.load(pem: Fixtures.apnsKey, key: nil)) {
            XCTAssertEqual($0 as? APNsCertificateError, .notACertificate(source: Fixtures.apnsKey))
        }
        XCTAssertThrowsError(try APNsClientCertificate.load(pem: "/nonexistent.pem", key: nil)) {
            XCTAssertEqual($0 as? APNsCertificateError, .unreadable(source: "/nonexistent.pem"))
        }
        let dir = Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let combined = dir.appendingPathComponent("both.pem").path
        try Data(try Data(contentsOf: URL(fileURLWithPath: pem)) + Data(contentsOf: URL(fileURLWithPath: key))).write(to: URL(fileURLWithPath: combined))
        XCTAssertEqual(try APNsClientCertificate.load(pem: combined, key: nil).facts.bundleID, "io.pushlab.demo", "certificate and key in one file")
    }
}
