import Foundation
import PushCore
import PushHTTP
import PushSend

/// The payload to send: a file (or stdin) or the builder flags.
extension SendSupport {
    /// The payload bytes from the positional file (or `-`), else built from the builder flags.
    static func payloadBytes(_ args: ParsedArguments, fcm: Bool) throws -> (bytes: [UInt8], source: String) {
        let builderUsed = builderOptions.contains { args.isGiven($0) }
        if args.positionals.count > 1 {
            throw UsageError("give one payload file, got \(args.positionals.count): \(args.positionals.joined(separator: " "))")
        }
        if let file = args.positionals.first {
            if builderUsed { throw UsageError("give a payload file or the builder flags (--title, --body …), not both") }
            return (try readInput(file, what: "payload file"), file == "-" ? "<stdin>" : file)
        }
        guard builderUsed else {
            throw UsageError("nothing to send: give a payload file, or build one with --title/--body (see --help)")
        }
        return (try builtPayload(args, fcm: fcm), builderSource)
    }

    /// The payload the builder flags describe: an APNs payload, or an FCM send request
    /// (`{"message": …}`) whose target is replaced per send.
    static func builtPayload(_ args: ParsedArguments, fcm: Bool) throws -> [UInt8] {
        let b = try PayloadBuilderFlags.builder(args)
        do {
            // The target is spliced in per send; a placeholder topic keeps the builder's token
            // check out of the way (the sender checks each token itself).
            let value = fcm ? try b.fcmRequest(target: .topic("pushlab-builder")) : try b.apnsPayload()
            return value.minifiedBytes()
        } catch {
            throw UsageError("\(error)", fix: error.fix)
        }
    }
}
