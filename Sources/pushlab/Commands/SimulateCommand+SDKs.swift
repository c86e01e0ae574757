import Foundation
import PushDevice
import OfflineLab

extension SimulateCommand {
    /// `--sdk retainza` and `--compare-sdks` (docs/retainza.md).
    static func runSDKs(_ args: ParsedArguments, parameters p: SimulationParameters, root: String) async throws -> Int32 {
        let path = try args[retainzaApp] ?? root + "/payloads/apps/retainza-demo.json"
        let profile = try RetainzaInputs.profile(path, flag: "--retainza-app")
        let sdks: [SDKComparison.SDK] = args[compareSDKs] ? [.customerIO, .retainza] : [.retainza]
        let cioPath = try args[app]
        let cioProfile: AppProfile
        do { cioProfile = try AppProfile.load(path: cioPath) } catch { throw UsageError("--app \(error.reason)", fix: error.fix) }
        let comparison = SDKComparison(certsDirectory: root + "/certs", assetsDirectory: root + "/payloads/assets", retainzaProfile: profile,
                                       customerIOProfile: cioProfile)
        let started = Date()
        var results: [SDKComparisonResult] = []
        for sdk in sdks {
            results += try await comparison.run(p, sdks: [sdk], progress: progressLine(label: sdk.label))
            if stderrIsTTY { writeError("\n") }
        }
        if args[json] {
            print(try renderJSON(results))
            return ExitStatus.success
        }
        var header = describe(p, stores: [], iPhone: false)
        header += "Retainza app: \(path) (storage \(profile.storage.rawValue), max queued \(profile.maxQueuedEvents)"
            + (profile.requireConsent ? ", requireConsent" : "") + "); every push is tapped, and each tap tracks one event\n"
        print(header)
        print(SDKComparisonResult.markdown(results), terminator: "")
        print(String(format: "wall time: %.1f s", Date().timeIntervalSince(started)))
        return ExitStatus.success
    }
}
