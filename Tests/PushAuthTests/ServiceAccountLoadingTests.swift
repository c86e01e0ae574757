import Foundation
import PushAuth
import TestSupport
import XCTest

/// docs/specs/fcm.md "Credentials": the service-account JSON, with an error naming the file and the field.
final class ServiceAccountLoadingTests: XCTestCase {
    private var dir: URL!
    override func setUp() { dir = Fixtures.temporaryDirectory("auth-sa") }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    private func devFields() throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Fixtures.fcmServiceAccount))) as! [String: Any]
    }

    private func write(_ fields: [String: Any], _ name: String = "sa.json") throws -> String {
        let url = dir.appendingPathComponent(name)
        try JSONSerialization.data(withJSONObject: fields).write(to: url)
        return url.path
    }

    private func loadError(_ path: String, line: UInt = #line) -> ServiceAccountError? {
        do { _ = try ServiceAccount.load(path: path); XCTFail("loaded", line: line); return nil } catch {
            XCTAssertTrue(error.description.hasPrefix(path), line: line)
            XCTAssertFalse(error.description.contains("MII"), "no key bytes in \(error)", line: line)
            return error
        }
    }

    func testDevServiceAccountLoads() throws {
        let account = try ServiceAccount.load(path: Fixtures.fcmServiceAccount)
        XCTAssertEqual(account.projectID, Fixtures.fcmProjectID)
        XCTAssertEqual(account.clientEmail, "pushlab-dev@pushlab-dev.iam.gserviceaccount.com")
        XCTAssertEqual(account.tokenURI, "https://localhost:8443/token")
        XCTAssertEqual(account.privateKeyID, "ea1b5d445b081a68013114f98944ae9ad33306fa")
        XCTAssertEqual(account.privateKey.algorithm, .rsa(bits: 2048))
        XCTAssertEqual(account.privateKey.publicKey.der, try PublicKey(contentsOfFile: Fixtures.fcmPublicKey).der)
        XCTAssertFalse(account.description.contains("PRIVATE"))
    }

    func testFileAssembledFromOpenSSLAndAFewLinesOfJSONLoads() throws {
        let keyPath = dir.appendingPathComponent("rsa.pem").path
        try AuthTestTools.openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", keyPath])
        let pem = String(decoding: try AuthTestTools.read(keyPath), as: UTF8.self)
        let path = try write(["type": "service_account", "project_id": "handmade", "private_key": pem,
                              "client_email": "bot@handmade.iam.gserviceaccount.com"])
        let account = try ServiceAccount.load(path: path)
        XCTAssertEqual(account.tokenURI, ServiceAccount.defaultTokenURI)
        XCTAssertNil(account.privateKeyID)
        let jwt = try OAuthTokenSource(account: account, transport: UnusedTransport()).assertion(issuedAt: Date())
        XCTAssertNoThrow(try JWT.verify(jwt, with: account.privateKey.publicKey, algorithm: .rs256))
    }

    func testGoogleAuthLoadsTheDevFileAndSignsExactlyAsPushlab() throws {
        // RSA PKCS#1 v1.5 is deterministic: the same key over the same bytes gives the same
        // signature, so google-auth's signer must reproduce pushlab's RS256 signature.
        let account = try ServiceAccount.load(path: Fixtures.fcmServiceAccount)
        let pushlabJWT = try JWT.sign(header: JWTHeader(alg: .rs256, kid: account.privateKeyID, typ: "JWT"),
                                      claims: JWTClaims(iss: account.clientEmail, iat: 1), key: account.privateKey)
        let result = try AuthTestTools.python("""
            import sys, base64
            from google.oauth2 import service_account
            creds = service_account.Credentials.from_service_account_file(sys.argv[1],
                scopes=["https://www.googleapis.com/auth/firebase.messaging"])
            print(creds.service_account_email, creds.project_id, creds.signer.key_id)
            msg = sys.argv[2].rsplit(".", 1)[0].encode()
            print(base64.urlsafe_b64encode(creds.signer.sign(msg)).decode().rstrip("="))
            """, [Fixtures.fcmServiceAccount, pushlabJWT])
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "pushlab-dev@pushlab-dev.iam.gserviceaccount.com pushlab-dev ea1b5d445b081a68013114f98944ae9ad33306fa")
        XCTAssertEqual(lines.last, String(pushlabJWT.split(separator: ".")[2]))
    }

    func testGoogleAuthAcceptsAPushlabStyleHandmadeFile() throws {
        let keyPath = dir.appendingPathComponent("rsa.pem").path
        try AuthTestTools.openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", keyPath])
        let pem = String(decoding: try AuthTestTools.read(keyPath), as: UTF8.self)
        let path = try write(["type": "service_account", "project_id": "handmade", "private_key_id": "k1", "private_key": pem,
                              "client_email": "bot@handmade.iam.gserviceaccount.com", "token_uri": "https://127.0.0.1:1/token"])
        XCTAssertNoThrow(try ServiceAccount.load(path: path))
        let result = try AuthTestTools.python("""
            import sys
            from google.oauth2 import service_account
            c = service_account.Credentials.from_service_account_file(sys.argv[1])
            print(c.project_id, c._token_uri)
            """, [path])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "handmade https://127.0.0.1:1/token")
    }

    func testMissingFieldIsNamed() throws {
        for field in ["type", "project_id", "client_email", "private_key"] {
            var fields = try devFields()
            fields.removeValue(forKey: field)
            let path = try write(fields, "\(field).json")
            XCTAssertEqual(loadError(path), .missingField(path: path, field: field))
            XCTAssertTrue(loadError(path)?.description.contains("/\(field)") ?? false)
        }
        var fields = try devFields()
        fields["project_id"] = 42
        let path = try write(fields)
        XCTAssertEqual(loadError(path), .fieldNotString(path: path, field: "project_id"))
    }

    func testWrongTypeIsRefused() throws {
        var fields = try devFields()
        fields["type"] = "authorized_user"
        let path = try write(fields)
        XCTAssertEqual(loadError(path), .wrongType(path: path, found: "authorized_user"))
    }

    func testNonRSAPrivateKeyIsRefused() throws {
        var fields = try devFields()
        fields["private_key"] = String(decoding: try AuthTestTools.read(Fixtures.apnsKey), as: UTF8.self)
        let path = try write(fields)
        guard case .privateKey(_, .notRSA(let source, let found))? = loadError(path) else { return XCTFail() }
        XCTAssertEqual(source, "\(path) (/private_key)")
        XCTAssertEqual(found, "EC P-256")
    }

    func testUnparsablePrivateKeyIsRefused() throws {
        var fields = try devFields()
        fields["private_key"] = "-----BEGIN PRIVATE KEY-----\nMIIEvQ\n-----END PRIVATE KEY-----\n"
        let path = try write(fields)
        guard case .privateKey(_, .corrupt)? = loadError(path) else { return XCTFail() }
        fields["private_key"] = "not a key"
        let other = try write(fields, "b.json")
        guard case .privateKey(_, .notPEM)? = loadError(other) else { return XCTFail() }
    }

    func testNotJSONAndMissingFileAreRefused() throws {
        guard case .notJSON? = loadError(Fixtures.apnsKey) else { return XCTFail() }
        let array = dir.appendingPathComponent("array.json")
        try AuthTestTools.write("[1,2]", to: array)
        XCTAssertEqual(loadError(array.path), .notAnObject(path: array.path))
        let missing = dir.appendingPathComponent("missing.json").path
        XCTAssertEqual(loadError(missing), .unreadable(path: missing, detail: "no such file"))
    }

    func testTokenURIMustBeHTTP() throws {
        var fields = try devFields()
        fields["token_uri"] = "localhost:8443/token"
        let path = try write(fields)
        XCTAssertEqual(loadError(path), .invalidTokenURI(path: path, uri: "localhost:8443/token"))
    }
}
