import Foundation
import PushAuth
import TestSupport
import XCTest

/// docs/specs/apns.md "Provider token": header {alg ES256, kid}, claims {iss, iat}, JOSE raw r‖s signature.
/// Checked by tools that share no code with pushlab: the openssl binary and PyJWT.
final class ES256InteropTests: XCTestCase {
    private var dir: URL!
    override func setUp() { dir = Fixtures.temporaryDirectory("auth-es256") }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    private func devKey() throws -> APNsAuthKey {
        try APNsAuthKey.load(path: Fixtures.apnsKey, teamID: Fixtures.apnsTeamID)
    }

    func testProviderTokenHasTheAPNsHeaderAndClaims() throws {
        let token = try devKey().providerToken(issuedAt: Date(timeIntervalSince1970: 1_767_225_600))
        let parts = token.split(separator: ".").map(String.init)
        XCTAssertEqual(parts.count, 3)
        XCTAssertEqual(String(decoding: Base64URL.decode(parts[0])!, as: UTF8.self), #"{"alg":"ES256","kid":"PLDEVKEY01"}"#)
        XCTAssertEqual(String(decoding: Base64URL.decode(parts[1])!, as: UTF8.self), #"{"iss":"PLDEVTEAM1","iat":1767225600}"#)
        XCTAssertEqual(Base64URL.decode(parts[2])?.count, 64, "JOSE ES256 signature is raw r‖s, 64 bytes")
    }

    func testOpenSSLVerifiesTheSignatureConvertedToDER() throws {
        let token = try devKey().providerToken(issuedAt: Date())
        let parts = token.split(separator: ".").map(String.init)
        let raw = try XCTUnwrap(Base64URL.decode(parts[2]))
        // Build the DER ECDSA-Sig-Value by hand (SEQUENCE of two INTEGERs), independent of the
        // conversion pushlab uses.
        func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            var b = Array(bytes.drop { $0 == 0 })
            if b.isEmpty { b = [0] }
            if b[0] & 0x80 != 0 { b.insert(0, at: 0) }
            return [0x02, UInt8(b.count)] + b
        }
        let body = integer(raw[0..<32]) + integer(raw[32..<64])
        let der = [0x30, UInt8(body.count)] + body
        let input = dir.appendingPathComponent("input"), sig = dir.appendingPathComponent("sig.der")
        try Data((parts[0] + "." + parts[1]).utf8).write(to: input)
        try Data(der).write(to: sig)
        let result = try AuthTestTools.openssl(["dgst", "-sha256", "-verify", Fixtures.apnsPublicKey,
                                                "-signature", sig.path, input.path])
        XCTAssertTrue(result.stdout.contains("Verified OK"), result.stdout)

        // And a flipped byte must fail, so the check above can fail.
        var bad = der
        bad[bad.count - 1] ^= 0x01
        try Data(bad).write(to: sig)
        let rejected = try ProcessRunner.run(AuthTestTools.openssl, ["dgst", "-sha256", "-verify", Fixtures.apnsPublicKey,
                                                                    "-signature", sig.path, input.path])
        XCTAssertNotEqual(rejected.status, 0)
    }

    func testPyJWTVerifiesPushlabTokens() throws {
        let token = try devKey().providerToken(issuedAt: Date())
        let result = try AuthTestTools.python("""
            import sys, jwt
            pub = open(sys.argv[1]).read()
            h = jwt.get_unverified_header(sys.argv[2])
            c = jwt.decode(sys.argv[2], pub, algorithms=["ES256"], options={"verify_iat": False})
            print(h["alg"], h["kid"], c["iss"], type(c["iat"]).__name__)
            """, [Fixtures.apnsPublicKey, token])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "ES256 PLDEVKEY01 PLDEVTEAM1 int")
    }

    func testPushlabVerifiesPyJWTTokensAndRejectsOtherKeys() throws {
        let result = try AuthTestTools.python("""
            import sys, jwt
            key = open(sys.argv[1]).read()
            print(jwt.encode({"iss": "PLDEVTEAM1", "iat": 1767225600}, key, algorithm="ES256", headers={"kid": "PLDEVKEY01"}))
            """, [Fixtures.apnsKey])
        XCTAssertEqual(result.status, 0, result.stderr)
        let token = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let publicKey = try PublicKey(contentsOfFile: Fixtures.apnsPublicKey)
        let jwt = try JWT.verify(token, with: publicKey, algorithm: .es256)
        XCTAssertEqual(jwt.header.kid, "PLDEVKEY01")
        XCTAssertEqual(jwt.claims.iss, "PLDEVTEAM1")
        XCTAssertEqual(jwt.claims.iat, 1_767_225_600)

        let stranger = PrivateKey.generateP256().publicKey
        XCTAssertThrowsError(try JWT.verify(token, with: stranger, algorithm: .es256)) { error in
            XCTAssertEqual(error as? JWTError, .badSignature)
        }
    }

    func testSignatureConvertsBetweenDERAndRawBothWays() throws {
        let key = PrivateKey.generateP256()
        for _ in 0..<50 {  // r or s with a high bit or a leading zero byte appear within a few tries
            let token = try JWT.sign(header: JWTHeader(alg: .es256), claims: JWTClaims(iss: "x"), key: key)
            let jwt = try JWT.parse(token)
            let der = try XCTUnwrap(ECDSASignature.derFromRaw(jwt.signature))
            XCTAssertEqual(ECDSASignature.rawFromDER(der), jwt.signature)
            try jwt.verify(with: key.publicKey, algorithm: .es256)
        }
    }

    func testOneKeyObjectVerifiesFromManyThreadsAtOnce() async throws {
        let key = try devKey()
        let publicKey = key.privateKey.publicKey
        let tokens = try (0..<20).map { try key.providerToken(issuedAt: Date(timeIntervalSince1970: Double($0))) }
        let verified = try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var ok = 0
                    for token in tokens {
                        _ = try key.providerToken(issuedAt: Date(timeIntervalSince1970: Double(worker)))
                        _ = try JWT.verify(token, with: publicKey, algorithm: .es256)
                        ok += 1
                    }
                    return ok
                }
            }
            return try await group.reduce(0, +)
        }
        XCTAssertEqual(verified, 160)
    }
}
