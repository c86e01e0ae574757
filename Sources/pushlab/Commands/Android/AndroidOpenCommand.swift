import Foundation
import PushCore
import PushDevice
import PushHTTP

/// `pushlab android open`: a tap on a notification of the virtual Android phone.
enum AndroidOpenCommand: Command {
    static let path = ["android", "open"]
    static let summary = "Tap a notification on the virtual Android phone: SDK routing, PushClickBehavior, task stack, opened metric."
    static let positionalUsage = "[message.json]"
    static let discussion = """
    Follows the SDK's order: opened metric, the app's onNotificationClicked callback, the app's
    own intent filters, another app, the launcher; applies PushClickBehavior to the task stack
    and Android 12's trampoline rule (targetSdk 31+). A tray notification (--drawn-by fcm-sdk)
    opens the launcher or click_action activity and counts opened only in ON_CREATE. The link
    comes from the message's data.link or --link. --cases runs a table of taps
    (payloads/taps/android-cases.json) and checks each expectation. The opened metric is
    uploaded on the app's pipeline (POST /v1/b) when a metrics host is set. See docs/android.md.
    """
    static let link = Option.string("--link", name: "URL", help: "The notification's data.link (instead of a message file).")
    static let drawnBy = Option.value(["--drawn-by"], name: "WHO", help: "customer.io-sdk (a data message the SDK drew) or fcm-sdk (a tray notification).",
                                      kind: ValueKind<AndroidDrawer>(parse: { raw, flag in
                                          guard let d = AndroidDrawer(rawValue: raw) else { throw UsageError("\(flag) must be customer.io-sdk or fcm-sdk, got '\(raw)'") }
                                          return d
                                      }, text: \.rawValue, example: "fcm-sdk"),
                                      default: .customerIOSDK)
    static let stack = Option.string("--stack", name: "A,B", help: "The app's task before the tap, bottom to top.", described: "the launcher activity")
    static let clickAction = Option.string("--click-action", name: "ACTIVITY", help: "Tray notifications: the click_action activity.")
    static let cases = Option.string("--cases", name: "FILE", help: "Run a tap table, e.g. payloads/taps/android-cases.json; exit 1 if a case differs.")
    static let caFile = Option.string("--ca-file", name: "FILE", help: "Trust this CA (PEM) for the metrics host.")
    static let json = Option.flag("--json", help: "Print the outcome as JSON.")
    static let options: [any OptionDeclaration] = [
        AndroidInputs.app, link, drawnBy, AndroidInputs.state, stack, clickAction, cases, AndroidInputs.metricsURL, caFile, json,
    ]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        if let cases = try args[Self.cases] { return try runCases(cases, json: args[json]) }
        guard args.positionals.count <= 1 else { throw UsageError("expected at most one message file") }
        let profile = try AndroidInputs.profile(args)
        let message = try args.positionals.first.map(AndroidInputs.message)
        var tap = AndroidTap(link: try args[link] ?? message?.dataValue(AndroidSDKContract.linkKey), state: try args[AndroidInputs.state])
        tap.drawnBy = try args[drawnBy]
        tap.stack = try args[stack].map { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } }
        tap.clickAction = try args[clickAction] ?? message?.clickAction
        for name in (tap.stack ?? []) + [tap.clickAction].compactMap({ $0 }) where profile.activity(named: name) == nil {
            throw UsageError("'\(name)' is not an activity of \(profile.package)", fix: "use one of: \(profile.activities.map(\.name).joined(separator: ", "))")
        }
        let outcome = AndroidTapRouter(profile: profile).tap(tap)
        var upload: String? = nil
        if outcome.openedMetrics > 0, let id = message?.deliveryID, let token = message?.deliveryToken {
            if profile.metricsBaseURL == nil {
                upload = "not uploaded (no --metrics-url)"
            } else {
                let (client, transport) = try AndroidInputs.transport(caFile: try args[caFile], profile: profile)
                let pipeline = AndroidDeliveredMetric.pipeline(profile: profile, transport: transport)
                for _ in 0..<outcome.openedMetrics {
                    await pipeline.enqueue(.deliveryMetric(.opened, deliveryID: id, recipient: token, timestamp: Date(),
                                                           identity: PipelineIdentity(anonymousId: "pushlab-android-anon")))
                }
                let report = await pipeline.flush()
                await client.shutdown()
                upload = report.attempts.map { "POST \($0.request.url) → \($0.outcome.summary)" }.joined(separator: "; ")
                if report.remaining > 0 {
                    emit(args[json] ? try renderJSON(outcome) : AndroidReportText.tap(outcome, upload: upload))
                    return ExitStatus.failure
                }
            }
        }
        emit(args[json] ? try renderJSON(outcome) : AndroidReportText.tap(outcome, upload: upload))
        return ExitStatus.success
    }

    static func runCases(_ path: String, json: Bool) throws -> Int32 {
        let table: AndroidTapCaseTable
        do { table = try AndroidTapCaseTable.load(path: path) } catch { throw UsageError("--cases \(error.reason)", fix: error.fix) }
        var rows: [[String]] = []
        var failures = 0
        struct Row: Encodable { var name: String; var outcome: AndroidTapOutcome; var mismatches: [String] }
        var out: [Row] = []
        for c in table.cases {
            let (outcome, wrong) = AndroidTapCaseTable.run(c)
            if !wrong.isEmpty { failures += 1 }
            out.append(Row(name: c.name, outcome: outcome, mismatches: wrong))
            rows.append([wrong.isEmpty ? "ok" : "FAIL", c.name, outcome.route.rawValue, outcome.target ?? "-", outcome.delivery,
                         outcome.stack.joined(separator: " → "), "\(outcome.openedMetrics)", outcome.diagnostics.map(\.code).joined(separator: ",")]
                        + (wrong.isEmpty ? [] : [wrong.joined(separator: "; ")]))
        }
        if json {
            emit(try renderJSON(out))
        } else {
            var text = AndroidReportText.table(["", "case", "route", "target", "delivery", "stack", "opened", "diagnostics"], rows)
            text += "\(table.cases.count - failures) of \(table.cases.count) cases as expected\n"
            emit(text)
        }
        return failures == 0 ? ExitStatus.success : ExitStatus.failure
    }
}
