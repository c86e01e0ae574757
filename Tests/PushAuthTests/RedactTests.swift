import PushAuth
import XCTest

/// COMMON standards: bearer values redacted, device tokens shortened to 8 chars + "…".
final class RedactTests: XCTestCase {
    func testBearerValueIsRedactedKeepingTheScheme() {
        XCTAssertEqual(Redact.bearer("bearer eyJhbGciOiJFUzI1NiJ9.e30.sig"), "bearer <redacted>")
        XCTAssertEqual(Redact.bearer("Bearer ya29.a0AfH6"), "Bearer <redacted>")
        XCTAssertEqual(Redact.bearer("eyJraw"), "<redacted>")
        XCTAssertEqual(Redact.header(name: "Authorization", value: "bearer x"), "bearer <redacted>")
        XCTAssertEqual(Redact.header(name: "apns-topic", value: "io.pushlab.demo"), "io.pushlab.demo")
    }

    func testDeviceTokenIsShortened() {
        XCTAssertEqual(Redact.token("a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"), "a1b2c3d4…")
        XCTAssertEqual(Redact.token("short"), "short")
    }
}
