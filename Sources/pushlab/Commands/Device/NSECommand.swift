import Foundation
import PushCore
import PushDevice
import PushHTTP

/// `pushlab nse`: runs one push through the emulated Notification Service Extension.
enum NSECommand: Command {
    static let path = ["nse"]
    static let summary = "Run one push through the emulated Notification Service Extension (Customer.io SDK) and show what the phone shows."
    static let positionalUsage = "payload.json"
    static let discussion = """
    Emulates iOS and the Customer.io SDK inside the extension: the mutable-content gate, the
    pending row in the App Group store, the delivered metric and the rich-push image download
    in parallel within the time budget, iOS's attachment rules, and the content handler. Prints
    a timeline and the notification as iOS would show it. See docs/device.md.
    Exit status: 0 when the phone shows everything the push asked for, 1 when the image was
    dropped, the budget expired, the extension was killed or the metric was not acknowledged.
    """
    static let budget = Option.duration("--budget", help: "iOS's time budget for the extension.", default: .seconds(30))
    static let container = DeviceInputs.container(help: "App Group container directory shared with 'pushlab app launch'.")
    static let caFile = Option.string("--ca-file", name: "FILE", help: "Trust this CA (PEM) for the image and metrics hosts, e.g. certs/ca.pem.")
    static let timeScale = Option.double("--time-scale", name: "N", help: "Run emulated time N times faster than real time.", in: 0.001...1_000_000, default: 1)
    static let tmp = Option.string("--tmp", name: "DIR", help: "The extension's temporary directory (images go to DIR/cio_sdk/ and stay there, e.g. for open --attachment).",
                                   described: "a new directory in the system temp, removed when the run ends")
    static let json = Option.flag("--json", help: "Print the run as JSON.")

    static let options: [any OptionDeclaration] = [
        DeviceInputs.app, budget, container, caFile, DeviceInputs.collector, DeviceInputs.killAt, timeScale, tmp, json,
    ]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.count == 1 else {
            throw UsageError("expected one payload file, got \(args.positionals.count)", fix: "pushlab nse payload.json --app payloads/apps/demo.json")
        }
        let (payload, _) = try DeviceInputs.payload(args.positionals[0])
        let profile = try DeviceInputs.profile(args)
        let container = try DeviceInputs.containerURL(try args[Self.container], required: false)
        let budget = try args[Self.budget]
        guard budget > .zero else { throw UsageError("--budget must be more than 0") }
        let scale = try args[timeScale]
        // Without --tmp the run's image goes to a directory of its own, removed at the end (iOS
        // moves the attachment out and clears the extension's temp), so runs leave nothing behind.
        let given = try args[Self.tmp]
        let tmp = given.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("pushlab-nse-\(UUID().uuidString)", isDirectory: true)
        defer { if given == nil { try? FileManager.default.removeItem(at: tmp) } }
        let store: any PendingMetricStore
        do {
            store = try PendingMetricStores.open(profile: profile, process: .notificationServiceExtension, container: container)
        } catch {
            throw UsageError("--container: \(error.reason)", fix: error.fix)
        }
        let client = try HTTPClient(configuration: HTTPClientConfiguration(caFile: try args[caFile], maxConnectionsPerHost: 4))
        let nse = NotificationServiceExtension(
            configuration: NSEConfiguration(profile: profile, budget: budget, killAt: try args[DeviceInputs.killAt],
                                            store: store, temporaryDirectory: tmp),
            transport: client, clock: ScaledClock(scale: scale))
        let report = await nse.run(payload: payload)
        await client.shutdown(abortInFlight: true)

        if args[json] {
            emit(try renderJSON(report))
        } else {
            emit(NSEReportText.render(report, source: args.positionals[0], profile: profile))
        }
        return NSEReportText.isComplete(report) ? ExitStatus.success : ExitStatus.failure
    }
}
