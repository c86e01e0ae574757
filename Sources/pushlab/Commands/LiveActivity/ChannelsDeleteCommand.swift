import Foundation
import PushAuth
import PushCore
import PushHTTP
import PushSend

/// `pushlab channels delete`.
enum ChannelsDeleteCommand: Command {
    static let path = ["channels", "delete"]
    static let summary = "Delete a broadcast channel (its subscribers get no more broadcasts)."
    static let discussion = ChannelCommandSupport.discussion
    static let options: [any OptionDeclaration] = [ChannelCommandSupport.channelOption] + ChannelCommandSupport.commonOptions

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let bundle = try ChannelCommandSupport.bundleID(args)
        let id = try ChannelCommandSupport.channelID(args)
        guard try await ChannelCommandSupport.call(args, what: "delete", { await $0.delete(bundleID: bundle, channelID: id) }) != nil
        else { return ExitStatus.failure }
        if args[ChannelCommandSupport.json] { emit(ChannelCommandSupport.jsonLine(["outcome": "deleted", "channel": id, "bundle_id": bundle])) } else {
            emit("deleted channel \(id)")
        }
        return ExitStatus.success
    }
}
