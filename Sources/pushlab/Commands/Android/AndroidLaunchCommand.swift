import Foundation
import PushCore
import PushDevice
import PushHTTP

/// `pushlab android launch`: the app comes to the foreground and hands pending metrics off.
enum AndroidLaunchCommand: Command {
    static let path = ["android", "launch"]
    static let summary = "Bring the virtual Android app to the foreground: the SDK hands pending delivered metrics to its pipeline."
    static let discussion = """
    Reads cio_pending_push_delivery.json in --files-dir (what 'pushlab android receive' left),
    claims each entry and publishes it as a Delivered push metric on the app's analytics
    pipeline, then flushes the pipeline now (POST /v1/b; the SDK's timer would wait up to 30 s).
    cio-android-legacy has no pending store and hands off nothing. See docs/android.md.
    Exit status: 1 when the upload failed (the events stay in the app's queue, not the file).
    """
    static let filesDir = Option.string("--files-dir", name: "DIR", help: "The app's filesDir, as given to 'pushlab android receive'.")
    static let caFile = Option.string("--ca-file", name: "FILE", help: "Trust this CA (PEM) for the metrics host.")
    static let json = Option.flag("--json", help: "Print the hand-off as JSON.")
    static let options: [any OptionDeclaration] = [AndroidInputs.app, filesDir, AndroidInputs.metricsURL, caFile, json]

    struct Report: Encodable {
        var handedOff: [String]
        var uploads: [String]
        var remainingInQueue: Int
        var leftInStore: Int
    }

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(args.positionals[0])'") }
        let profile = try AndroidInputs.profile(args)
        let (filesDir, _) = try AndroidInputs.filesDir(try args[Self.filesDir], required: true)
        let store = try AndroidPendingDeliveryStore(filesDir: filesDir)
        let (client, transport) = try AndroidInputs.transport(caFile: try args[caFile], profile: profile)
        let pipeline = AndroidDeliveredMetric.pipeline(profile: profile, transport: transport)
        let claimed = await AndroidForegroundHandoff.run(store: store, pipeline: pipeline, mode: profile.sdkMode,
                                                         identity: PipelineIdentity(anonymousId: "pushlab-android-anon"))
        let flush = claimed.isEmpty ? nil : await pipeline.flush()
        await client.shutdown()
        let report = Report(handedOff: claimed.map(\.deliveryId),
                            uploads: flush?.attempts.map { "POST \($0.request.url) → \($0.outcome.summary)" } ?? [],
                            remainingInQueue: flush?.remaining ?? 0, leftInStore: store.loadAll().count)
        if args[json] {
            emit(try renderJSON(report))
        } else {
            var out = "android launch: \(profile.package) comes to the foreground (ON_START), sdk \(profile.sdkMode.rawValue)\n"
            if profile.sdkMode == .cioAndroidLegacy { out += "this SDK version has no pending store: nothing to hand off\n" }
            out += "handed off \(claimed.count) pending delivered metric(s)" + (claimed.isEmpty ? "" : ": " + claimed.map(\.deliveryId).joined(separator: ", ")) + "\n"
            for u in report.uploads { out += "upload: \(u)\n" }
            out += "left in the app's queue: \(report.remainingInQueue)   left in \(AndroidSDKContract.pendingStoreFileName): \(report.leftInStore)\n"
            emit(out)
        }
        return report.remainingInQueue == 0 ? ExitStatus.success : ExitStatus.failure
    }
}
