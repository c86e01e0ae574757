import Foundation

/// Paths every test shares: the repository root, the dev certificates and samples.
public enum Fixtures {
    /// The repository root, found from this file's location.
    public static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        fatalError("Package.swift not found above \(#filePath)")
    }()

    public static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    public static let caFile = path("certs/ca.pem")
    public static let serverCert = path("certs/server.pem")
    public static let serverKey = path("certs/server.key")
    public static let untrustedCert = path("certs/untrusted.pem")
    public static let untrustedKey = path("certs/untrusted.key")
    public static let apnsKeyID = "PLDEVKEY01"
    public static let apnsTeamID = "PLDEVTEAM1"
    public static let apnsKey = path("certs/AuthKey_PLDEVKEY01.p8")
    public static let apnsPublicKey = path("certs/AuthKey_PLDEVKEY01.pub.pem")
    public static let bundleID = "io.pushlab.demo"
    public static let fcmServiceAccount = path("certs/fcm-service-account.json")
    public static let fcmPublicKey = path("certs/fcm-service-account.pub.pem")
    public static let fcmProjectID = "pushlab-dev"
    /// The debug build of the CLI (`make test` builds it before the tests run), or the binary
    /// `PUSHLAB_TEST_BINARY` names (`make sanitize` runs the relay outage tests against its
    /// AddressSanitizer build, so the nodes they start are checked too).
    public static let pushlabBinary = ProcessInfo.processInfo.environment["PUSHLAB_TEST_BINARY"].flatMap { $0.isEmpty ? nil : $0 }
        ?? path(".build/debug/pushlab")
    /// The Python venv made by scripts/bootstrap.
    public static let python = path(".venv/bin/python")

    /// Throws (a test failure, never a skip) when `path` is not an executable, saying how to get it:
    /// the pushlab binary comes from the build, every peer from scripts/bootstrap.
    public static func requireExecutable(_ path: String) throws {
        guard !FileManager.default.isExecutableFile(atPath: path) else { return }
        if path == pushlabBinary {
            throw TestEnvironmentError("\(path) is missing: build it first with `swift build --build-tests` (`make test` does)")
        }
        throw TestEnvironmentError("\(path) is missing: run scripts/bootstrap, which installs every peer the tests use "
                                   + "(Debian packages and the Python venv .venv)")
    }

    /// The built pushlab binary, or a failure that says how to build it.
    public static func requirePushlab() throws { try requireExecutable(pushlabBinary) }

    /// A copy of the dev service account (`fcmServiceAccount`) whose `token_uri` is `tokenURI`
    /// (its fixed localhost:8443 pointed at a server the test started), written to
    /// `directory/sa.json`. Returns the copy's path.
    public static func fcmServiceAccount(tokenURI: String, in directory: URL) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: fcmServiceAccount))
        guard var account = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw TestEnvironmentError("\(fcmServiceAccount) is not a JSON object: restore it from git")
        }
        account["token_uri"] = tokenURI
        let path = directory.appendingPathComponent("sa.json").path
        try JSONSerialization.data(withJSONObject: account).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A fresh temporary directory, removed by the caller when done.
    public static func temporaryDirectory(_ prefix: String = "pushlab") -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
