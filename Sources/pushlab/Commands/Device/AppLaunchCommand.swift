import Foundation
import PushDevice
import PushHTTP

/// `pushlab app launch`: the host app's cold start, which recovers pending delivered metrics.
enum AppLaunchCommand: Command {
    static let path = ["app", "launch"]
    static let summary = "Cold-start the emulated host app: recover pending delivered metrics from the App Group store."
    static let discussion = """
    Loads the rows the extension left in the App Group container, oldest first, queues them as
    delivered events with their original timestamps on the app's batched event pipeline
    (POST /v1/b) and flushes it. cio-4 deletes the rows right after queueing (the reference
    SDK); improved deletes only rows whose batch got a 2xx. --foreground emulates a return to
    the foreground, which recovers nothing. See docs/device.md.
    """
    static let container = DeviceInputs.container(help: "App Group container directory the extension wrote to.")
    static let caFile = Option.string("--ca-file", name: "FILE", help: "Trust this CA (PEM) for the metrics host, e.g. certs/ca.pem.")
    static let anonymousID = Option.string("--anonymous-id", name: "ID", help: "The app's analytics anonymous id.", described: "pushlab-anon-<bundle id>")
    static let noUpload = Option.flag("--no-upload", help: "The app dies after queueing, before the upload (a loss case in cio-4).")
    static let foreground = Option.flag("--foreground", help: "A return to the foreground instead of a cold start: no recovery.")
    static let json = Option.flag("--json", help: "Print the recovery report as JSON.")

    static let options: [any OptionDeclaration] = [DeviceInputs.app, container, caFile, DeviceInputs.collector, anonymousID, noUpload, foreground, json]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(args.positionals[0])'") }
        let profile = try DeviceInputs.profile(args)
        let container = try DeviceInputs.containerURL(try args[Self.container], required: true)
        if args[foreground] {
            emit(args[json] ? #"{"recovered":[],"note":"foreground return: the SDK recovers only at a cold start"}"#
                                     : "foreground return: the SDK recovers pending metrics only at a cold start; nothing sent")
            return ExitStatus.success
        }
        let store: any PendingMetricStore
        do {
            store = try PendingMetricStores.open(profile: profile, process: .app, container: container)
        } catch {
            throw UsageError("--container: \(error.reason)", fix: error.fix)
        }
        let client = try HTTPClient(configuration: HTTPClientConfiguration(caFile: try args[caFile]))
        let identity = PipelineIdentity(anonymousId: try args[anonymousID] ?? "pushlab-anon-\(profile.bundleID)")
        let recovery = LaunchRecovery(profile: profile, store: store,
                                      pipeline: LaunchRecovery.pipeline(for: profile, transport: client), identity: identity)
        let report: LaunchRecoveryReport
        do {
            report = try await recovery.run(upload: !args[noUpload])
        } catch {
            await client.shutdown()
            printError("pushlab app launch: \(error)")
            return ExitStatus.failure
        }
        await client.shutdown()
        if args[json] {
            emit(try renderJSON(report))
        } else {
            var out = "app launch (cold start): \(profile.bundleID), sdk \(report.sdkMode.rawValue), \(report.store.rawValue) store"
                + (report.storePath.map { " at \($0)" } ?? "") + "\n"
            if let note = report.note { out += "note: \(note)\n" }
            out += "recovered \(report.recovered.count) pending delivered row(s), oldest first; rows deleted \(report.deletePolicy.rawValue)\n"
            for r in report.recovered { out += "  \(r.timestamp)  \(r.deliveryID)\n" }
            for u in report.uploads { out += "upload: \(u)\n" }
            out += "acknowledged: \(report.acknowledgedEvents)   deleted after queueing: \(report.deletedAfterQueueing)   "
                + "deleted after 2xx: \(report.deletedAfterAcknowledgement)   left in store: \(report.remainingInStore)   "
                + "left in app queue: \(report.remainingInQueue)" + (report.droppedByCap.map { "   dropped by cap: \($0)" } ?? "") + "\n"
            emit(out)
        }
        let lost = report.remainingInQueue > 0 && report.deletePolicy == .afterQueueing
        if lost {
            // The faithful mode keeps the SDK's data loss; say so where nobody can miss it.
            printError("pushlab app launch: \(report.remainingInQueue) row(s) lost, as the reference SDK would: cio-4 deleted them from the App Group store right after queueing and the upload did not succeed")
            printError("  fix: an app on the improved mode (\"sdkMode\": \"improved\") deletes rows only after a 2xx and keeps them for the next launch")
        }
        return report.acknowledgedEvents == report.recovered.count && !lost ? ExitStatus.success : ExitStatus.failure
    }
}
