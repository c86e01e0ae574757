import Foundation
import PushHTTP
import PushSend

func runCLI(_ argv: [String]) async -> Int32 {
    let args = Array(argv.dropFirst())
    if args.isEmpty || args == ["--help"] || args == ["-h"] || args == ["help"] {
        print(Help.overview(allCommands), terminator: "")
        return args.isEmpty ? ExitStatus.usage : ExitStatus.success
    }
    if args == ["--version"] || args == ["version"] {
        print("pushlab \(pushlabVersion)")
        return ExitStatus.success
    }
    // Longest matching command path wins (`send apns` before `send`).
    let match = allCommands
        .filter { args.starts(with: $0.path) }
        .max { $0.path.count < $1.path.count }
    guard let command = match else {
        let group = allCommands.filter { $0.path.first == args[0] }
        if !group.isEmpty, args.count == 2, helpFlag.spec.names.contains(args[1]) {
            print(Help.group(args[0], group), terminator: "")
            return ExitStatus.success
        }
        if !group.isEmpty {
            printError("pushlab \(args[0]): choose one of: " + group.map { $0.path.joined(separator: " ") }.joined(separator: ", ")
                       + "\n  fix: e.g. pushlab \(group[0].path.joined(separator: " ")) --help")
        } else {
            printError("pushlab: unknown command '\(args[0])'\n  fix: run 'pushlab --help' for the list of commands")
        }
        return ExitStatus.usage
    }
    let rest = Array(args.dropFirst(command.path.count))
    let name = command.path.joined(separator: " ")
    do {
        var parsed = try ArgumentParser.parse(rest, options: command.optionSpecs, command: name)
        if parsed[helpFlag] {
            print(Help.render(command), terminator: "")
            return ExitStatus.success
        }
        if let targets = ProfileDefaults.commands[command.path] { try ProfileDefaults.apply(to: &parsed, targets) }
        return try await command.run(parsed)
    } catch BulkInputError.closedStandardOutput {
        StandardStreams.endInClosedPipe()
    } catch let error as UsageError {
        // Every usage error says how to fix it: its own fix, else where the options are listed.
        var shown = error
        if shown.fix == nil { shown.fix = "see 'pushlab \(name) --help'" }
        printError("pushlab \(name): \(shown)")
        return ExitStatus.usage
    } catch {
        printError("pushlab \(name): \(error)")
        return ExitStatus.failure
    }
}

signal(SIGPIPE, SIG_IGN)
let status = await runCLI(CommandLine.arguments)
// No client loop may still run while `exit` runs the libraries' exit handlers
// (`ClientLoopThreads`): a command that returned early on an error dropped its clients unstopped.
ClientLoopThreads.endAll(within: .seconds(2))
exit(status)
