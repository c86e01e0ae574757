import Foundation
import PushDevice

/// `pushlab app store`: shows (or appends to) the App Group store a process sees.
enum AppStoreCommand: Command {
    static let path = ["app", "store"]
    static let summary = "Show the pending delivered metrics in an App Group container (or append test rows)."
    static let discussion = """
    Lists the rows the extension or the app sees in the container, oldest first. --append N
    writes N rows the way the extension does (one locked, atomic write each) and prints
    'ack <row id>' after each write returned — what the crash-safety tests kill processes on.
    """
    static let container = DeviceInputs.container(help: "App Group container directory.")
    static let process = Option.value(["--process"], name: "nse|app", help: "Which process's view of the App Group to open.",
                                      kind: ValueKind<HostProcess>(parse: { raw, flag in
                                          switch raw {
                                          case "app": return .app
                                          case "nse": return .notificationServiceExtension
                                          default: throw UsageError("\(flag) takes nse or app, got '\(raw)'")
                                          }
                                      }, text: { $0 == .app ? "app" : "nse" }, example: "nse"),
                                      default: .app)
    static let append = Option.int("--append", help: "Append N delivered rows, printing 'ack <id>' after each.", in: 1...1_000_000)
    static let deliveryPrefix = Option.string("--delivery-prefix", name: "TEXT", help: "Delivery ids of appended rows are TEXT-<n>.", default: "pushlab")
    static let json = Option.flag("--json", help: "Print the rows as JSON.")

    static let options: [any OptionDeclaration] = [DeviceInputs.app, container, process, append, deliveryPrefix, json]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let profile = try DeviceInputs.profile(args)
        let container = try DeviceInputs.containerURL(try args[Self.container], required: true)
        let process = try args[Self.process]
        let store: any PendingMetricStore
        do {
            store = try PendingMetricStores.open(profile: profile, process: process, container: container)
        } catch {
            throw UsageError("--container: \(error.reason)", fix: error.fix)
        }
        if let n = try args[append] {
            let prefix = try args[deliveryPrefix]
            for i in 1...n {
                let row = PendingDeliveryMetric(deliveryID: "\(prefix)-\(i)", deviceID: "pushlab-device-token", timestamp: Date())
                let outcome = try store.append(row)
                switch outcome {
                case .stored: emit("ack \(row.id.uuidString)")
                case .duplicate: emit("duplicate \(row.deliveryID)")
                case .disabled(let why): emit("off \(why)"); return ExitStatus.failure
                }
            }
            return ExitStatus.success
        }
        let rows = try store.loadAll()
        if args[json] {
            emit(try renderJSON(rows))
        } else {
            emit("\(store.kind.rawValue) store" + (store.path.map { " at \($0)" } ?? "") + ": \(rows.count) pending row(s)"
                 + ((store as? DisabledPendingMetricStore).map { " (off: \($0.reason))" } ?? ""))
            for r in rows { emit("  \(r.timestamp)  \(r.deliveryID)  \(r.event)  \(r.id.uuidString)") }
        }
        return ExitStatus.success
    }
}
