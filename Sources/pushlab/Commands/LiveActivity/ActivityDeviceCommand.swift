import Foundation
import PushAuth
import PushCore
import PushDevice
import PushHTTP

/// `pushlab activity device`: a virtual iPhone in the running emulator, and its push-to-start token.
enum ActivityDeviceCommand: Command {
    static let path = ["activity", "device"]
    static let summary = "Create a virtual iPhone in pushlab serve and print its push-to-start token."
    static let device = Option.string("--device", name: "NAME", help: "The phone's name, e.g. phone-1.")
    static let options: [any OptionDeclaration] = [device] + ActivitySupport.adminOptions

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let name = try args.required(device, fix: "name the phone, e.g. --device phone-1")
        let answer = try await ActivitySupport.admin(args, "POST", "/admin/activities/devices",
                                                     body: .object(JSONObject([JSONMember(key: "name", value: .string(name))])))
        if args[ActivitySupport.json] { emit(answer.prettyPrinted()) } else { emit(answer["pushToStartToken"]?.stringValue ?? "") }
        return ExitStatus.success
    }
}
