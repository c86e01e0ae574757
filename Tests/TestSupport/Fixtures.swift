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
    /// The debug build of the CLI (`make test` builds it before the tests run).
    public static let pushlabBinary = path(".build/debug/pushlab")
    /// The Python venv made by scripts/bootstrap.
    public static let python = path(".venv/bin/python")

    /// A fresh temporary directory, removed by the caller when done.
    public static func temporaryDirectory(_ prefix: String = "pushlab") -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
