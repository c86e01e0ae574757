import Foundation
import TestSupport
import XCTest

/// A `pushlab serve` or `pushlab collector` started as a real process on port 0; the bound
/// URLs are read from its first lines of output. Stopped with SIGINT (the graceful path).
final class ServerProcess {
    let process = Process()
    private let out = Pipe(), err = Pipe()
    private(set) var banner = ""

    init(_ arguments: [String], readyWhen ready: @escaping (String) -> Bool) throws {
        process.executableURL = URL(fileURLWithPath: Fixtures.pushlabBinary)
        process.arguments = arguments
        process.currentDirectoryURL = Fixtures.root
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while !ready(banner), Date() < deadline, process.isRunning {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            banner += String(decoding: chunk, as: UTF8.self)
        }
        guard ready(banner) else {
            stop()
            throw XCTSkip("server did not start: \(banner)")
        }
    }

    /// The port in the first line starting with `prefix` (e.g. "APNs: https://127.0.0.1:").
    func port(after prefix: String) -> Int? {
        banner.split(separator: "\n").first { $0.hasPrefix(prefix) }
            .flatMap { Int($0.dropFirst(prefix.count).prefix { $0.isNumber }) }
    }

    /// Stops the server and returns everything it printed (stdout + stderr).
    @discardableResult
    func stop() -> String {
        if process.isRunning { process.interrupt() }
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { process.terminate(); process.waitUntilExit() }
        let rest = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        return banner + String(decoding: rest, as: UTF8.self) + String(decoding: errors, as: UTF8.self)
    }

    deinit { if process.isRunning { process.terminate() } }
}

/// Credentials made by independent tools (PyJWT in the venv, curl) for requests that must get
/// past authentication to reach the check under test.
enum PeerCredentials {
    /// An ES256 provider token for the dev APNs key, signed by PyJWT.
    static func apnsJWT() throws -> String {
        let script = """
            import jwt, time, sys
            print(jwt.encode({"iss": "PLDEVTEAM1", "iat": int(time.time())}, open(sys.argv[1]).read(),
                             algorithm="ES256", headers={"kid": "PLDEVKEY01"}))
            """
        let r = try ProcessRunner.run(Fixtures.python, ["-c", script, Fixtures.apnsKey])
        guard r.status == 0 else { throw XCTSkip("PyJWT unavailable: \(r.stderr)") }
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
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
        let assertion = try ProcessRunner.run(Fixtures.python, ["-c", script, Fixtures.fcmServiceAccount, tokenURL])
        guard assertion.status == 0 else { throw XCTSkip("PyJWT unavailable: \(assertion.stderr)") }
        let r = try ProcessRunner.run("/usr/bin/curl", ["-s", "--cacert", Fixtures.caFile, "-d",
            "grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=\(assertion.stdout.trimmingCharacters(in: .whitespacesAndNewlines))",
            tokenURL])
        let object = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        return try XCTUnwrap(object?["access_token"] as? String, "no access token from \(tokenURL): \(r.stdout)")
    }
}
