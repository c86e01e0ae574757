import Foundation

/// `pushlab completions bash|zsh|fish`: prints a completion script generated from the commands'
/// option declarations.
enum CompletionsCommand: Command {
    static let path = ["completions"]
    static let summary = "Print a shell completion script (bash, zsh or fish) for every command and option."
    static let positionalUsage = "bash|zsh|fish"
    static let discussion = """
        The script is generated from the same declarations as --help, so it lists exactly the \
        commands and options this binary has. `make install` puts all three in place; by hand:

          pushlab completions bash > ~/.local/share/bash-completion/completions/pushlab
          pushlab completions zsh > "${fpath[1]}/_pushlab"
          pushlab completions fish > ~/.config/fish/completions/pushlab.fish
        """
    static let options: [any OptionDeclaration] = []

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let names = ShellCompletion.Shell.allCases.map(\.rawValue).joined(separator: ", ")
        guard args.positionals.count == 1 else {
            throw UsageError("name one shell", fix: "e.g. pushlab completions bash (one of \(names))")
        }
        guard let shell = ShellCompletion.Shell(rawValue: args.positionals[0]) else {
            throw UsageError("unknown shell '\(args.positionals[0])'", fix: "use one of \(names)")
        }
        print(ShellCompletion.script(for: shell, commands: allCommands), terminator: "")
        return ExitStatus.success
    }
}
