import Foundation
import PushAuth
import TestSupport
import XCTest

/// docs/specs/apns.md "Provider token": the .p8 is a PEM PKCS#8 P-256 key named AuthKey_<KEYID>.p8.
/// Every wrong file a user may pass gets its own error naming the file.
final class APNsKeyLoadingTests: XCTestCase {
    private var dir: URL!

    override func setUp() { dir = Fixtures.temporaryDirectory("auth-keys") }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    private func loadError(_ file: String, keyID: String? = "ABCDE12345", teamID: String = Fixtures.apnsTeamID,
                           line: UInt = #line) -> KeyLoadError? {
        do {
            _ = try APNsAuthKey.load(path: file, keyID: keyID, teamID: teamID)
            XCTFail("loading \(file) should fail", line: line)
            return nil
        } catch {
            // The message names the file and never echoes its bytes.
            if let source = error.source { XCTAssertTrue(error.description.contains(source), line: line) }
            XCTAssertFalse(error.description.contains("MII"), line: line)
            XCTAssertFalse(error.fix.isEmpty, line: line)
            return error
        }
    }

    func testDevKeyLoadsWithKeyIDFromFileName() throws {
        let key = try APNsAuthKey.load(path: Fixtures.apnsKey, teamID: Fixtures.apnsTeamID)
        XCTAssertEqual(key.keyID, Fixtures.apnsKeyID)
        XCTAssertEqual(key.teamID, Fixtures.apnsTeamID)
        XCTAssertEqual(key.privateKey.algorithm, .p256)
        XCTAssertFalse(key.description.contains("MII"))
    }

    func testExplicitKeyIDWinsOverFileName() throws {
        let key = try APNsAuthKey.load(path: Fixtures.apnsKey, keyID: "ZZZZZ99999", teamID: Fixtures.apnsTeamID)
        XCTAssertEqual(key.keyID, "ZZZZZ99999")
    }

    func testKeyIDIsRequiredWhenTheFileNameDoesNotCarryIt() throws {
        try FileManager.default.copyItem(atPath: Fixtures.apnsKey, toPath: path("apns.p8"))
        guard case .missingKeyID(let source)? = loadError(path("apns.p8"), keyID: nil) else { return XCTFail() }
        XCTAssertEqual(source, path("apns.p8"))
        XCTAssertNil(APNsAuthKey.keyID(fromFileName: "AuthKey_SHORT.p8"))
        XCTAssertEqual(APNsAuthKey.keyID(fromFileName: "/x/AuthKey_AB12CD34EF.p8"), "AB12CD34EF")
    }

    func testTeamIDIsRequiredAndChecked() {
        guard case .missingTeamID? = loadError(Fixtures.apnsKey, teamID: "") else { return XCTFail() }
        guard case .invalidTeamID("TEAM")? = loadError(Fixtures.apnsKey, teamID: "TEAM") else { return XCTFail() }
        guard case .invalidKeyID("bad id")? = loadError(Fixtures.apnsKey, keyID: "bad id") else { return XCTFail() }
    }

    func testRSAKeyIsRefused() throws {
        try AuthTestTools.openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", path("rsa.p8")])
        guard case .rsaKeyInsteadOfP256? = loadError(path("rsa.p8")) else { return XCTFail() }
    }

    func testTraditionalRSAKeyIsRefusedAsRSA() throws {
        try AuthTestTools.openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024", "-out", path("rsa.pem")])
        try AuthTestTools.openssl(["pkey", "-in", path("rsa.pem"), "-traditional", "-out", path("rsa-trad.pem")])
        guard case .rsaKeyInsteadOfP256? = loadError(path("rsa-trad.pem")) else { return XCTFail() }
    }

    func testP384KeyIsRefusedNamingTheCurve() throws {
        try AuthTestTools.openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384", "-out", path("p384.p8")])
        guard case .wrongCurve(_, let curve)? = loadError(path("p384.p8")) else { return XCTFail() }
        XCTAssertTrue(curve.contains("P-384"), curve)
    }

    func testEncryptedPKCS8KeyIsRefused() throws {
        try AuthTestTools.openssl(["pkcs8", "-topk8", "-in", Fixtures.apnsKey, "-out", path("enc.p8"),
                                   "-passout", "pass:secret", "-v2", "aes-256-cbc"])
        guard case .encrypted? = loadError(path("enc.p8")) else { return XCTFail() }
    }

    func testLegacyEncryptedECKeyIsRefused() throws {
        try AuthTestTools.openssl(["ec", "-in", Fixtures.apnsKey, "-aes256", "-passout", "pass:secret", "-out", path("enc-ec.pem")])
        guard case .encrypted? = loadError(path("enc-ec.pem")) else { return XCTFail() }
    }

    func testCertificateIsRefused() {
        guard case .certificateInsteadOfKey? = loadError(Fixtures.serverCert) else { return XCTFail() }
    }

    func testPublicKeyIsRefusedWhereThePrivateKeyIsNeeded() {
        guard case .publicKeyInsteadOfPrivateKey? = loadError(Fixtures.apnsPublicKey) else { return XCTFail() }
    }

    func testEmptyFileIsRefused() throws {
        try AuthTestTools.write("", to: dir.appendingPathComponent("empty.p8"))
        guard case .empty? = loadError(path("empty.p8")) else { return XCTFail() }
        try AuthTestTools.write("\n  \n", to: dir.appendingPathComponent("blank.p8"))
        guard case .empty? = loadError(path("blank.p8")) else { return XCTFail() }
    }

    func testTruncatedFileIsRefused() throws {
        let bytes = try AuthTestTools.read(Fixtures.apnsKey)
        try Data(bytes.prefix(bytes.count / 2)).write(to: dir.appendingPathComponent("cut.p8"))
        guard case .truncated? = loadError(path("cut.p8")) else { return XCTFail() }
    }

    func testKeyWithLinesRemovedIsReportedAsDamaged() throws {
        var lines = String(decoding: try AuthTestTools.read(Fixtures.apnsKey), as: UTF8.self).split(separator: "\n")
        lines.remove(at: 2)
        try AuthTestTools.write(lines.joined(separator: "\n") + "\n", to: dir.appendingPathComponent("holey.p8"))
        guard case .corrupt? = loadError(path("holey.p8")) else { return XCTFail() }
    }

    func testGarbageIsNotPEM() throws {
        try AuthTestTools.write("{\"this\": \"is json\"}\n", to: dir.appendingPathComponent("garbage.p8"))
        guard case .notPEM? = loadError(path("garbage.p8")) else { return XCTFail() }
        try AuthTestTools.write("-----BEGIN PRIVATE KEY-----\n!!!not base64!!!\n-----END PRIVATE KEY-----\n",
                                to: dir.appendingPathComponent("bad64.p8"))
        guard case .corrupt? = loadError(path("bad64.p8")) else { return XCTFail() }
    }

    func testBinaryDERIsRecognised() throws {
        try AuthTestTools.openssl(["pkey", "-in", Fixtures.apnsKey, "-outform", "DER", "-out", path("key.der")])
        guard case .binaryDER? = loadError(path("key.der")) else { return XCTFail() }
    }

    func testMissingFileAndDirectoryAreUnreadable() {
        guard case .unreadable(_, let detail)? = loadError(path("nope.p8")) else { return XCTFail() }
        XCTAssertEqual(detail, "no such file")
        guard case .unreadable? = loadError(dir.path) else { return XCTFail() }
    }

    func testUnreadableFileIsReported() throws {
        try FileManager.default.copyItem(atPath: Fixtures.apnsKey, toPath: path("locked.p8"))
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: path("locked.p8"))
        guard getuid() == 0 else {
            guard case .unreadable(_, let detail)? = loadError(path("locked.p8")) else { return XCTFail() }
            XCTAssertEqual(detail, "permission denied or I/O error")
            return
        }
        // Root reads a mode-0000 file, so the load runs in a child that has dropped to nobody
        // (setpriv, util-linux) and goes through the CLI, which maps the same error.
        try Fixtures.requirePushlab()
        try Fixtures.requireExecutable("/usr/bin/setpriv")
        let closed = try ClosedPort()  // never Apple's default host: a key that loaded would meet a refused port
        let r = try ProcessRunner.run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", Fixtures.pushlabBinary,
                                                           "send", "apns", "--key", path("locked.p8"), "--key-id", "ABCDE12345",
                                                           "--team-id", Fixtures.apnsTeamID, "--topic", Fixtures.bundleID,
                                                           "--token", String(repeating: "ab", count: 32), "--title", "x", "--no-history",
                                                           "--url", closed.httpsURL],
                                      environment: ["HOME": dir.path])
        XCTAssertEqual(r.status, 2, r.stdout + r.stderr)
        XCTAssertTrue(r.stderr.contains(path("locked.p8")), r.stderr)
        XCTAssertTrue(r.stderr.contains("cannot read the file (permission denied or I/O error)"), r.stderr)
        XCTAssertTrue(r.stderr.contains("check the path and its permissions"), r.stderr)
    }

    func testKeysMangledByEditorsStillLoad() throws {
        let pem = String(decoding: try AuthTestTools.read(Fixtures.apnsKey), as: UTF8.self)
        let variants = [
            "crlf": pem.replacingOccurrences(of: "\n", with: "\r\n"),
            "bom": "\u{FEFF}" + pem,
            "flattened": pem.replacingOccurrences(of: "\n", with: "\\n"),
            "indented": pem.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"),
        ]
        let expected = try PrivateKey(contentsOfFile: Fixtures.apnsKey).publicKey.der
        for (name, text) in variants {
            try AuthTestTools.write(text, to: dir.appendingPathComponent("\(name).p8"))
            let key = try APNsAuthKey.load(path: path("\(name).p8"), keyID: "ABCDE12345", teamID: Fixtures.apnsTeamID)
            XCTAssertEqual(key.privateKey.publicKey.der, expected, name)
        }
    }

    func testSEC1ECKeyWithParametersLoads() throws {
        try AuthTestTools.openssl(["ecparam", "-name", "prime256v1", "-genkey", "-out", path("sec1.pem")])
        let key = try APNsAuthKey.load(path: path("sec1.pem"), keyID: "ABCDE12345", teamID: Fixtures.apnsTeamID)
        XCTAssertEqual(key.privateKey.algorithm, .p256)
    }

    func testPublicKeyLoadsAndMatchesTheDerivedHalf() throws {
        let file = try PublicKey(contentsOfFile: Fixtures.apnsPublicKey)
        let derived = try PrivateKey(contentsOfFile: Fixtures.apnsKey).publicKey
        XCTAssertEqual(file.algorithm, .p256)
        XCTAssertEqual(file.der, derived.der)
        let reparsed = try PublicKey(pem: Array(derived.pem.utf8), source: "memory")
        XCTAssertEqual(reparsed.der, file.der)
        XCTAssertThrowsError(try PublicKey(contentsOfFile: Fixtures.apnsKey)) { error in
            guard case KeyLoadError.privateKeyInsteadOfPublicKey = error else { return XCTFail("\(error)") }
        }
    }
}
