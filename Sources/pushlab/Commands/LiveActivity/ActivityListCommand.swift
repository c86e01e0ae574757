import Foundation
import PushAuth
import PushCore
import PushDevice
import PushHTTP

/// `pushlab activity list`: every virtual iPhone's activities in pushlab serve.
enum ActivityListCommand: Command {
    static let path = ["activity", "list"]
    static let summary = "Show the Live Activities on the virtual iPhones of pushlab serve (Lock Screen state)."
    static let options: [any OptionDeclaration] = ActivitySupport.adminOptions

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let answer = try await ActivitySupport.admin(args, "GET", "/admin/activities")
        if args[ActivitySupport.json] { emit(answer.prettyPrinted()); return ExitStatus.success }
        for device in answer["devices"]?.arrayValue ?? JSONArray() {
            let name = device["name"]?.stringValue ?? "?"
            let activities = device["activities"]?.arrayValue ?? JSONArray()
            if activities.isEmpty { emit("\(name): no Live Activity") }
            for a in activities {
                let state = a["contentState"].map { String(decoding: $0.minifiedBytes(), as: UTF8.self) } ?? "{}"
                emit("\(name): \(a["id"]?.stringValue ?? "") \(a["attributesType"]?.stringValue ?? "") [\(a["phase"]?.stringValue ?? "")] \(state)")
                // Pushes that reached it but were not applied: never silent.
                if let n = a["notApplied"]?.numberValue?.intValue, let last = a["lastNotApplied"] {
                    emit("  \(n) push\(n == 1 ? "" : "es") not applied; last: \(last["event"]?.stringValue ?? "") — \(last["detail"]?.stringValue ?? "")")
                }
            }
        }
        return ExitStatus.success
    }
}
