import Foundation
import PushAuth
import PushCore
import PushHTTP
import PushSend

/// `pushlab channels create`.
enum ChannelsCreateCommand: Command {
    static let path = ["channels", "create"]
    static let summary = "Create a Live Activity broadcast channel (iOS 18) and print its id."
    static let discussion = ChannelCommandSupport.discussion
    static let storagePolicy = Option.value(["--storage-policy"], name: "POLICY", help: "no-storage (only connected devices; broadcasts need apns-expiration 0) or most-recent (the latest message is kept for offline devices).",
                                            kind: ValueKind<ChannelStoragePolicy>(parse: { raw, flag in
                                                guard let policy = ChannelStoragePolicy(name: raw) else {
                                                    throw UsageError("\(flag) \(raw) is not a storage policy", fix: "use no-storage (0) or most-recent (1)")
                                                }
                                                return policy
                                            }, text: \.name, example: "most-recent"),
                                            default: .noStorage)
    static let options: [any OptionDeclaration] = [storagePolicy] + ChannelCommandSupport.commonOptions

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let bundle = try ChannelCommandSupport.bundleID(args)
        let policy = try args[storagePolicy]
        guard let (id, requestID) = try await ChannelCommandSupport.call(args, what: "create", { await $0.create(bundleID: bundle, policy: policy) })
        else { return ExitStatus.failure }
        if args[ChannelCommandSupport.json] {
            emit(ChannelCommandSupport.jsonLine(["outcome": "created", "channel": id, "bundle_id": bundle,
                                                 "storage_policy": policy.name, "request_id": requestID]))
        } else {
            emit(id)
            printError("created channel \(id) for \(bundle) (storage \(policy.name))")
        }
        return ExitStatus.success
    }
}
