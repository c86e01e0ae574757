import Foundation

enum Help {
    static func render(_ command: Command.Type) -> String {
        var out = "usage: pushlab \(command.path.joined(separator: " "))"
        if !command.shownOptionSpecs.isEmpty { out += " [options]" }
        if !command.positionalUsage.isEmpty { out += " \(command.positionalUsage)" }
        out += "\n\n\(command.summary)\n"
        if !command.discussion.isEmpty { out += "\n\(command.discussion)\n" }
        let all = command.shownOptionSpecs + commonOptions
        out += "\noptions:\n"
        let lefts = all.map { spec -> String in
            var s = spec.names.joined(separator: ", ")
            if let v = spec.valueName { s += " \(v)" }
            return s
        }
        let width = min((lefts.map(\.count).max() ?? 0) + 2, 34)
        for (spec, left) in zip(all, lefts) {
            var help = spec.help
            if let d = spec.defaultDescription { help += " (default: \(d))" }
            if spec.repeatable { help += " [repeatable]" }
            if left.count + 2 > width {
                out += "  \(left)\n" + String(repeating: " ", count: width + 2) + "\(help)\n"
            } else {
                out += "  " + left.padding(toLength: width, withPad: " ", startingAt: 0) + help + "\n"
            }
        }
        return out
    }

    static func overview(_ commands: [Command.Type]) -> String {
        var out = """
        pushlab \(pushlabVersion) — a push-notification lab: send real APNs/FCM pushes, validate payloads,
        emulate the gateway and the device side, and measure delivery metrics.

        usage: pushlab <command> [options]

        commands:

        """
        let width = (commands.map { $0.path.joined(separator: " ").count }.max() ?? 0) + 4
        for c in commands {
            out += "  " + c.path.joined(separator: " ").padding(toLength: width, withPad: " ", startingAt: 0) + c.summary + "\n"
        }
        out += "\nRun 'pushlab <command> --help' for a command's options. 'pushlab --version' prints the version.\n"
        out += "Exit status: 0 success, 1 push rejected or validation failed, 2 bad usage or unreadable input.\n"
        return out
    }
}
