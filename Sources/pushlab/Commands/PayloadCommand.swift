import Foundation
import PushCore

/// `pushlab payload`: builds an APNs payload (or an FCM v1 message with --fcm) from flags. The
/// output is checked with the whole rule catalog first, so it always passes `pushlab validate`.
enum PayloadCommand: Command {
    static let path = ["payload"]
    static let summary = "Build an APNs payload or FCM v1 message from flags (always passes validate)."
    static let discussion = """
    With --image or --delivery-id/--delivery-token the payload is a Customer.io rich push: \
    CIO.push.image/link, the delivery keys at the top level and "mutable-content": 1 so the \
    Notification Service Extension runs. With --fcm the same content becomes {"message": …} with \
    the Customer.io keys under message.apns.payload; give exactly one of --fid, --token, --topic, \
    --condition (--fid: a Firebase Installation ID, the target firebase-admin 7.x prefers over the \
    deprecated registration token).
    """
    static let interruptionLevel = Option.string("--interruption-level", name: "LEVEL", help: "passive, active, time-sensitive or critical.")
    static let relevanceScore = Option.double("--relevance-score", help: "Relevance score from 0 to 1.", in: 0...1)
    static let pushType = Option.choice("--push-type", among: ["alert", "background"], help: "alert or background (content-available only; the same as --background).", default: "alert")
    static let mutableContent = Option.flag("--mutable-content", help: "Set mutable-content 1 even without an image or delivery keys.")
    static let fcm = Option.flag("--fcm", help: "Print an FCM v1 send request instead of an APNs payload.")
    static let fid = Option.string("--fid", name: "FID", help: "Firebase Installation ID, 22 characters (with --fcm).")
    static let token = Option.string("--token", name: "TOKEN", help: "FCM registration token (with --fcm).")
    static let topic = Option.string("--topic", name: "TOPIC", help: "FCM topic (with --fcm).")
    static let condition = Option.string("--condition", name: "EXPR", help: "FCM condition (with --fcm).")
    static let validateOnly = Option.flag("--validate-only", help: "Set validate_only: true in the FCM request.")
    static let simulatorBundle = Option.string("--simulator-bundle", name: "BUNDLE", help: "Print a .apns simulator file for this bundle id.")
    static let minify = Option.flag("--minify", help: "Print the minified bytes that are sent instead of indented JSON.")

    static let options: [any OptionDeclaration] = PayloadBuilderFlags.options + [
        interruptionLevel, relevanceScore, pushType, mutableContent, fcm, fid, token, topic, condition, validateOnly, simulatorBundle, minify,
    ]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        var b = try PayloadBuilderFlags.builder(args)
        b.interruptionLevel = try args[interruptionLevel]
        b.relevanceScore = try args[relevanceScore]
        b.mutableContent = args[mutableContent]
        if args.isGiven(pushType) {
            let rawType = try args[pushType]
            guard let type = APNsPushType(rawValue: rawType), [.alert, .background].contains(type) else {
                throw UsageError("--push-type must be alert or background, got '\(rawType)'")
            }
            if args[PayloadBuilderFlags.background], type != .background {
                throw UsageError("--background and --push-type \(rawType) disagree", fix: "give one of them")
            }
            b.pushType = type
        }

        let value: JSONValue
        do {
            if args[fcm] {
                value = try b.fcmRequest(target: try target(args), validateOnly: args[validateOnly] ? true : nil)
            } else {
                for option in [fid, token, topic, condition, validateOnly] as [any OptionDeclaration] where args.isGiven(option) {
                    let flag = option.spec.primary
                    throw UsageError("\(flag) only applies with --fcm", fix: "add --fcm, or drop \(flag)")
                }
                let payload = try b.apnsPayload()
                if let bundle = try args[simulatorBundle] {
                    value = SimulatorFile(targetBundle: bundle, payload: payload).json
                } else {
                    value = payload
                }
            }
        } catch let error as PayloadBuildError {
            let rule = error.ruleID.map { " [\($0)]" } ?? ""
            throw UsageError("\(error)\(rule)", fix: error.fix)
        }
        if args[minify] {
            writeOutput(value.minifiedBytes() + Array("\n".utf8))
        } else {
            emit(value.prettyPrinted())
        }
        return ExitStatus.success
    }

    static func target(_ args: ParsedArguments) throws -> FCMTarget {
        let given = try [fid, token, topic, condition].compactMap { option in
            try args[option].map { (flag: option.spec.primary, target: FCMTarget(field: String(option.spec.primary.dropFirst(2)), value: $0)!) }
        }
        guard given.count == 1 else {
            throw UsageError(given.isEmpty ? "--fcm needs a target" : "give only one of \(given.map(\.flag).joined(separator: ", "))",
                             fix: "pass exactly one of --fid, --token, --topic, --condition")
        }
        return given[0].target
    }
}
