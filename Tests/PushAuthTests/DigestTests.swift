import PushAuth
import XCTest

/// Known-answer vectors: FIPS 180-2 for SHA-256, RFC 4231 test case 2 for HMAC-SHA256.
final class DigestTests: XCTestCase {
    func testSHA256OfABCMatchesFIPS180Vector() {
        XCTAssertEqual(Digest.hex(Digest.sha256("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    func testHMACSHA256MatchesRFC4231TestCase2() {
        let mac = Digest.hmacSHA256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        XCTAssertEqual(Digest.hex(mac), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }
}
