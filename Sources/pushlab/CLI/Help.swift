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
        // `pushlab relay` also heads `pushlab relay keys`: its help names the commands under it.
        let under = allCommands.filter { $0.path.count > command.path.count && $0.path.starts(with: command.path) }
        if !under.isEmpty { out += "\ncommands:\n" + commandList(under) }
        return out
    }

    /// `pushlab android --help`: a group's commands (every command whose path starts with
    /// `name`), as git and argument-parser print a command group.
    static func group(_ name: String, _ commands: [Command.Type]) -> String {
        var out = "usage: pushlab \(name) <command> [options]\n\ncommands:\n" + commandList(commands)
        out += "\nRun 'pushlab \(name) <command> --help' for a command's options.\n"
        return out
    }

    /// One line per command: its path, then its summary.
    private static func commandList(_ commands: [Command.Type]) -> String {
        let width = (commands.map { $0.path.joined(separator: " ").count }.max() ?? 0) + 4
        return commands.map { "  " + $0.path.joined(separator: " ").padding(toLength: width, withPad: " ", startingAt: 0) + $0.summary + "\n" }.joined()
    }

    static func overview(_ commands: [Command.Type]) -> String {
        var out = """
        pushlab \(pushlabVersion) — a push-notification lab: send real APNs/FCM pushes, validate payloads,
        emulate the gateway and the device side, and measure delivery metrics.

        usage: pushlab <command> [options]

        commands:

        """
        out += commandList(commands)
        out += "\nRun 'pushlab <command> --help' for a command's options. 'pushlab --version' prints the version.\n"
        out += "Exit status: 0 success, 1 push rejected or validation failed, 2 bad usage or unreadable input.\n"
        return out
    }
}
