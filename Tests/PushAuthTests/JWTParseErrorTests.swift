import Foundation
import PushAuth
import TestSupport
import XCTest

/// The verify side (gateway): each broken token gets its precise error; none echoes the token.
final class JWTParseErrorTests: XCTestCase {
    private let key = PrivateKey.generateP256()

    private func token(header: String = #"{"alg":"ES256","kid":"K"}"#, claims: String = #"{"iss":"T","iat":1}"#) throws -> String {
        let input = Base64URL.encode(header) + "." + Base64URL.encode(claims)
        let signed = try JWT.sign(header: JWTHeader(alg: .es256), claims: JWTClaims(), key: key)
        return input + "." + signed.split(separator: ".")[2]
    }

    private func parseError(_ token: String, line: UInt = #line) -> JWTError? {
        do { _ = try JWT.parse(token); XCTFail("parsed", line: line); return nil } catch {
            XCTAssertFalse(error.description.contains(token), line: line)
            return error
        }
    }

    func testWrongSegmentCountIsMalformed() {
        XCTAssertEqual(parseError("abc.def"), .malformed("expected 3 dot-separated segments, found 2"))
        XCTAssertEqual(parseError("a.b.c.d"), .malformed("expected 3 dot-separated segments, found 4"))
        XCTAssertEqual(parseError("a..c"), .malformed("a segment is empty"))
        XCTAssertEqual(parseError(""), .malformed("expected 3 dot-separated segments, found 1"))
    }

    func testBadBase64IsNamedBySegment() {
        XCTAssertEqual(parseError("e+J.eyJ9.abc"), .badBase64(.header))
        XCTAssertEqual(parseError(Base64URL.encode("{}") + ".e$.abc"), .badBase64(.claims))
        XCTAssertEqual(parseError(Base64URL.encode(#"{"alg":"ES256"}"#) + "." + Base64URL.encode("{}") + ".a"), .badBase64(.signature))
    }

    func testNonJSONAndMissingAlgAreReported() throws {
        XCTAssertEqual(parseError(Base64URL.encode("not json") + ".e30.AAAA"), .badJSON(.header))
        XCTAssertEqual(parseError(Base64URL.encode(#"{"alg":"ES256"}"#) + "." + Base64URL.encode("[1]") + ".AAAA"), .badJSON(.claims))
        XCTAssertEqual(parseError(Base64URL.encode(#"{"iss":"x"}"#) + ".e30.AAAA"), .malformed("the header has no 'alg'"))
        XCTAssertEqual(parseError(try token(claims: #"{"iat":"yesterday"}"#)), .badJSON(.claims))
    }

    func testAlgorithmIsNeverChosenByTheToken() throws {
        let none = Base64URL.encode(#"{"alg":"none"}"#) + "." + Base64URL.encode("{}") + ".AAAA"
        XCTAssertThrowsError(try JWT.parse(none).verify(with: key.publicKey)) {
            XCTAssertEqual($0 as? JWTError, .unsupportedAlgorithm("none"))
        }
        let hs = try JWT.parse(try token(header: #"{"alg":"HS256"}"#))
        XCTAssertThrowsError(try hs.verify(with: key.publicKey, algorithm: .es256)) {
            XCTAssertEqual($0 as? JWTError, .unsupportedAlgorithm("HS256"))
        }
        let rsa = PrivateKey.generateRSA(bits: 1024)
        let rs = try JWT.sign(header: JWTHeader(alg: .rs256), claims: JWTClaims(iss: "x"), key: rsa)
        XCTAssertThrowsError(try JWT.verify(rs, with: rsa.publicKey, algorithm: .es256)) {
            XCTAssertEqual($0 as? JWTError, .wrongAlgorithm(expected: .es256, found: "RS256"))
        }
        XCTAssertThrowsError(try JWT.verify(rs, with: key.publicKey, algorithm: .rs256)) {
            XCTAssertEqual($0 as? JWTError, .keyMismatch(algorithm: .rs256, key: .p256))
        }
        XCTAssertThrowsError(try JWT.sign(header: JWTHeader(alg: .es256), claims: JWTClaims(), key: rsa)) {
            XCTAssertEqual($0 as? JWTError, .keyMismatch(algorithm: .es256, key: .rsa(bits: 1024)))
        }
    }

    func testTamperedClaimsFailTheSignature() throws {
        let good = try JWT.sign(header: JWTHeader(alg: .es256, kid: "K"), claims: JWTClaims(iss: "TEAM", iat: 5), key: key)
        let parts = good.split(separator: ".")
        let forged = parts[0] + "." + Base64URL.encode(#"{"iss":"OTHER","iat":5}"#) + "." + parts[2]
        XCTAssertThrowsError(try JWT.verify(forged, with: key.publicKey, algorithm: .es256)) {
            XCTAssertEqual($0 as? JWTError, .badSignature)
        }
        let short = parts[0] + "." + parts[1] + "." + Base64URL.encode([UInt8](repeating: 1, count: 63))
        XCTAssertThrowsError(try JWT.verify(short, with: key.publicKey, algorithm: .es256)) {
            XCTAssertEqual($0 as? JWTError, .badSignature)
        }
        XCTAssertNoThrow(try JWT.verify(good, with: key.publicKey, algorithm: .es256))
    }

    func testClaimsParseIntoTheTypedStruct() throws {
        let jwt = try JWT.parse(try token(header: #"{"alg":"RS256","typ":"JWT","kid":"k1"}"#,
                                          claims: #"{"iss":"a@b","scope":"s","aud":"https://t","iat":10,"exp":3610,"extra":[1]}"#))
        XCTAssertEqual(jwt.header, JWTHeader(alg: .rs256, kid: "k1", typ: "JWT"))
        XCTAssertEqual(jwt.claims, JWTClaims(iss: "a@b", aud: ["https://t"], scope: "s", iat: 10, exp: 3610))
        XCTAssertEqual(jwt.claims.audience, "https://t")
    }

    func testBase64URLRoundTripsAndRejectsTheStandardAlphabet() {
        for n in 0..<40 {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 250) }
            let text = Base64URL.encode(bytes)
            XCTAssertFalse(text.contains("=") || text.contains("+") || text.contains("/"))
            XCTAssertEqual(Base64URL.decode(text), bytes)
        }
        XCTAssertNil(Base64URL.decode("ab+/"))
        XCTAssertNil(Base64URL.decode("a"))
        XCTAssertEqual(Base64URL.decode("-_8"), [0xFB, 0xFF])
    }
}
