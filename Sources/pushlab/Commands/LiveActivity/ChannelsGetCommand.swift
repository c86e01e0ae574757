import Foundation
import PushAuth
import PushCore
import PushHTTP
import PushSend

/// `pushlab channels get`.
enum ChannelsGetCommand: Command {
    static let path = ["channels", "get"]
    static let summary = "Show a broadcast channel's storage policy and push type."
    static let discussion = ChannelCommandSupport.discussion
    static let options: [any OptionDeclaration] = [ChannelCommandSupport.channelOption] + ChannelCommandSupport.commonOptions

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let bundle = try ChannelCommandSupport.bundleID(args)
        let id = try ChannelCommandSupport.channelID(args)
        guard let (settings, requestID) = try await ChannelCommandSupport.call(args, what: "get", { await $0.read(bundleID: bundle, channelID: id) })
        else { return ExitStatus.failure }
        if args[ChannelCommandSupport.json] {
            emit(ChannelCommandSupport.jsonLine(["channel": id, "bundle_id": bundle, "storage_policy": settings.storagePolicy.name,
                                                 "push_type": settings.pushType, "request_id": requestID]))
        } else {
            emit("channel \(id): storage \(settings.storagePolicy.name) (message-storage-policy \(settings.storagePolicy.rawValue)), push type \(settings.pushType)")
        }
        return ExitStatus.success
    }
}
