import Foundation
import PushAuth
import PushCore
import PushDevice
import PushHTTP

/// `pushlab activity start`: the app on a virtual iPhone starts an activity (`Activity.request`).
enum ActivityStartCommand: Command {
    static let path = ["activity", "start"]
    static let summary = "Start a Live Activity on a virtual iPhone in pushlab serve (optionally subscribed to a channel)."
    static let device = Option.string("--device", name: "NAME", help: "The phone (created on first use).")
    static let attributesType = Option.string("--attributes-type", name: "NAME", help: "The ActivityAttributes type.")
    static let attributes = Option.string("--attributes", name: "JSON", help: "File with the attributes object.")
    static let contentState = Option.string("--content-state", name: "JSON", help: "File with the initial content-state.")
    static let channel = Option.string("--channel", name: "ID", help: "Subscribe to this broadcast channel (pushType: .channel(id)).")
    static let pushToken = Option.flag("--push-token", help: "Ask for the activity's push token (pushType: .token).")
    static let options: [any OptionDeclaration] = [
        device, attributesType, attributes, contentState, channel, pushToken,
    ] + ActivitySupport.adminOptions

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let device = try args.required(Self.device, fix: "name the phone, e.g. --device phone-1")
        let type = try args.required(attributesType, fix: "the ActivityAttributes type, e.g. DeliveryAttributes")
        let state = try ActivityRunCommand.jsonObject(try args.required(contentState, fix: "a JSON file with the initial state"), flag: "--content-state")
        var members = [JSONMember(key: "device", value: .string(device)), JSONMember(key: "attributesType", value: .string(type)),
                       JSONMember(key: "contentState", value: state)]
        if let file = try args[attributes] { members.append(JSONMember(key: "attributes", value: try ActivityRunCommand.jsonObject(file, flag: "--attributes"))) }
        if let channel = try args[Self.channel] { members.append(JSONMember(key: "channel", value: .string(channel))) }
        if args[pushToken] { members.append(JSONMember(key: "pushToken", value: .bool(true))) }
        let answer = try await ActivitySupport.admin(args, "POST", "/admin/activities", body: .object(JSONObject(members)))
        if args[ActivitySupport.json] { emit(answer.prettyPrinted()); return ExitStatus.success }
        for e in answer["events"]?.arrayValue ?? JSONArray() {
            emit("\(device): \(e["event"]?.stringValue ?? "") \(e["activity"]?.stringValue ?? "") \(e["detail"]?.stringValue ?? "")")
        }
        return ExitStatus.success
    }
}
