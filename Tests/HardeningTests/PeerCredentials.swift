import Foundation
import TestSupport
import XCTest

/// Credentials made by independent tools (PyJWT in the venv, curl) for requests that must get
/// past authentication to reach the check under test. A failing peer fails the test with its
/// output (bootstrap installs PyJWT; a crash in it is a bug to see, not a reason to skip).
enum PeerCredentials {
    /// An ES256 provider token for the dev APNs key, signed by PyJWT.
    static func apnsJWT() throws -> String {
        let script = """
            import jwt, time, sys
            print(jwt.encode({"iss": "PLDEVTEAM1", "iat": int(time.time())}, open(sys.argv[1]).read(),
                             algorithm="ES256", headers={"kid": "PLDEVKEY01"}))
            """
        return try python(script, [Fixtures.apnsKey])
    }

    /// An access token from the gateway's /token for the dev service account (RS256 assertion by PyJWT).
    static func fcmAccessToken(tokenURL: String) throws -> String {
        let script = """
            import jwt, time, json, sys
            sa = json.load(open(sys.argv[1]))
            now = int(time.time())
            print(jwt.encode({"iss": sa["client_email"], "scope": "https://www.googleapis.com/auth/firebase.messaging",
                              "aud": sys.argv[2], "iat": now, "exp": now + 3600}, sa["private_key"], algorithm="RS256",
                             headers={"kid": sa["private_key_id"]}))
            """
        let assertion = try python(script, [Fixtures.fcmServiceAccount, tokenURL])
        let r = try ProcessRunner.run("/usr/bin/curl", ["-s", "--cacert", Fixtures.caFile, "-d",
            "grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=\(assertion)", tokenURL])
        XCTAssertEqual(r.status, 0, "curl \(tokenURL): \(r.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        return try XCTUnwrap(object?["access_token"] as? String, "no access token from \(tokenURL): \(r.stdout)")
    }

    private static func python(_ script: String, _ arguments: [String]) throws -> String {
        try Fixtures.requireExecutable(Fixtures.python)
        let r = try ProcessRunner.run(Fixtures.python, ["-c", script] + arguments)
        guard r.status == 0 else {
            throw TestEnvironmentError("PyJWT (.venv, installed by scripts/bootstrap) exited \(r.status): \(r.stderr)")
        }
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
