import Foundation
import TestSupport

/// The relay.json the process tests start `pushlab relay` with: one app, `demo`, that sends with
/// the dev `.p8` key to the emulator's APNs port (`pushlab serve`, trusting the dev CA).
enum RelayEmulatorConfig {
    static func write(to path: String, apnsPort: Int, concurrency: Int, leaseSeconds: Int? = nil, ratePerMinute: Int) throws {
        let lease = leaseSeconds.map { #", "lease_seconds": \#($0)"# } ?? ""
        let json = """
            {"listen": {"port": 0},
             "workers": {"concurrency": \(concurrency)\(lease)},
             "apps": {"demo": {"rate_per_minute": \(ratePerMinute),
               "apns": {"key": "\(Fixtures.apnsKey)", "key_id": "\(Fixtures.apnsKeyID)", "team_id": "\(Fixtures.apnsTeamID)",
                        "bundle_id": "\(Fixtures.bundleID)", "url": "https://127.0.0.1:\(apnsPort)", "ca_file": "\(Fixtures.caFile)"}}}}
            """
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
    }
}
