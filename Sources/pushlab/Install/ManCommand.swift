import Foundation

/// `pushlab man`: writes the man pages (or prints one) generated from the commands' declarations.
enum ManCommand: Command {
    static let path = ["man"]
    static let summary = "Write pushlab's man pages to a directory, or print one command's page."
    static let positionalUsage = "[COMMAND …]"
    static let discussion = """
        With --dir, writes pushlab.1 and one pushlab-<command>.1 per command (e.g. \
        pushlab-send-apns.1) into DIR; `make install` puts them under PREFIX/share/man/man1. \
        Without --dir, prints the page of the command named (e.g. pushlab man send apns), or of \
        pushlab itself; read it with `man -l -`.
        """
    static let dir = Option.string("--dir", name: "DIR", help: "Write every page into DIR (created if missing).")
    static let options: [any OptionDeclaration] = [dir]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let date = String(ISO8601DateFormatter().string(from: Date()).prefix(10))
        if let dir = try args[Self.dir] {
            guard args.positionals.isEmpty else { throw UsageError("--dir writes every page; name no command with it") }
            do {
                try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
                try Data(ManPage.overview(allCommands, date: date).utf8).write(to: URL(fileURLWithPath: dir + "/pushlab.1"))
                for c in allCommands {
                    try Data(ManPage.page(c, date: date).utf8).write(to: URL(fileURLWithPath: dir + "/\(ManPage.name(c)).1"))
                }
            } catch {
                throw UsageError("--dir \(dir): cannot write the pages (\(error.localizedDescription))", fix: "pass a writable directory")
            }
            print("wrote \(allCommands.count + 1) man pages to \(dir)")
            return ExitStatus.success
        }
        if args.positionals.isEmpty {
            print(ManPage.overview(allCommands, date: date), terminator: "")
            return ExitStatus.success
        }
        guard let command = allCommands.first(where: { $0.path == args.positionals }) else {
            throw UsageError("no command '\(args.positionals.joined(separator: " "))'", fix: "run 'pushlab --help' for the list of commands")
        }
        print(ManPage.page(command, date: date), terminator: "")
        return ExitStatus.success
    }
}
