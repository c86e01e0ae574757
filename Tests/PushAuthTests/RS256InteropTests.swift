import Foundation
import PushAuth
import TestSupport
import XCTest

/// docs/specs/fcm.md "Access token": the assertion is an RS256 JWT. PyJWT checks pushlab's, pushlab checks PyJWT's.
final class RS256InteropTests: XCTestCase {
    private func serviceAccountKey() throws -> PrivateKey {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Fixtures.fcmServiceAccount)))
        let pem = try XCTUnwrap((json as? [String: Any])?["private_key"] as? String)
        return try PrivateKey(pem: Array(pem.utf8), source: "fcm-service-account.json")
    }

    func testPyJWTVerifiesPushlabRS256Tokens() throws {
        let key = try serviceAccountKey()
        XCTAssertEqual(key.algorithm, .rsa(bits: 2048))
        let token = try JWT.sign(header: JWTHeader(alg: .rs256, kid: "kid-1", typ: "JWT"),
                                 claims: JWTClaims(iss: "a@b.iam.gserviceaccount.com", aud: ["https://localhost/token"],
                                                   scope: "https://www.googleapis.com/auth/firebase.messaging",
                                                   iat: 1_767_225_600, exp: 1_767_229_200),
                                 key: key)
        let result = try AuthTestTools.python("""
            import sys, jwt
            pub = open(sys.argv[1]).read()
            c = jwt.decode(sys.argv[2], pub, algorithms=["RS256"], audience="https://localhost/token",
                           options={"verify_exp": False, "verify_iat": False})
            h = jwt.get_unverified_header(sys.argv[2])
            print(h["alg"], h["typ"], h["kid"], c["iss"], c["scope"], c["exp"] - c["iat"])
            """, [Fixtures.fcmPublicKey, token])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines),
                       "RS256 JWT kid-1 a@b.iam.gserviceaccount.com https://www.googleapis.com/auth/firebase.messaging 3600")
    }

    func testPushlabVerifiesPyJWTRS256Tokens() throws {
        let result = try AuthTestTools.python("""
            import sys, json, jwt
            sa = json.load(open(sys.argv[1]))
            print(jwt.encode({"iss": sa["client_email"], "aud": ["x", "y"], "iat": 1767225600.5}, sa["private_key"],
                             algorithm="RS256", headers={"kid": sa["private_key_id"]}))
            """, [Fixtures.fcmServiceAccount])
        XCTAssertEqual(result.status, 0, result.stderr)
        let token = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let jwt = try JWT.verify(token, with: try PublicKey(contentsOfFile: Fixtures.fcmPublicKey), algorithm: .rs256)
        XCTAssertEqual(jwt.claims.aud, ["x", "y"])
        XCTAssertEqual(jwt.claims.iat, 1_767_225_600)
        XCTAssertEqual(jwt.header.typ, "JWT")
        XCTAssertThrowsError(try jwt.verify(with: PrivateKey.generateRSA(bits: 1024).publicKey, algorithm: .rs256)) {
            XCTAssertEqual($0 as? JWTError, .badSignature)
        }
    }
}
