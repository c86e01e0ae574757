import Foundation
import PushAuth
import PushCore
import PushHTTP
import PushSend

/// `pushlab channels list`.
enum ChannelsListCommand: Command {
    static let path = ["channels", "list"]
    static let summary = "List the app's broadcast channels in this environment."
    static let discussion = ChannelCommandSupport.discussion
    static let options: [any OptionDeclaration] = ChannelCommandSupport.commonOptions

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let bundle = try ChannelCommandSupport.bundleID(args)
        guard let (ids, _) = try await ChannelCommandSupport.call(args, what: "list", { await $0.list(bundleID: bundle) })
        else { return ExitStatus.failure }
        if args[ChannelCommandSupport.json] {
            let body: JSONValue = .object(JSONObject([JSONMember(key: "bundle_id", value: .string(bundle)),
                                                      JSONMember(key: "channels", value: .array(JSONArray(ids.map { .string($0) })))]))
            emit(String(decoding: body.minifiedBytes(), as: UTF8.self))
        } else {
            for id in ids { emit(id) }
            printError("\(ids.count) channel(s) for \(bundle)")
        }
        return ExitStatus.success
    }
}
