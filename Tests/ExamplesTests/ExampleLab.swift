import Foundation
import TestSupport

/// Runs the shell examples of one Markdown file as a reader would, top to bottom in one shell,
/// inside a lab: private network and mount namespaces (the emulator can use its default ports
/// while other tests run, `/tmp` is empty and private — but for the repository and the pushlab
/// binary, bound in at their own paths when they live under /tmp, as a clone in /tmp does;
/// whatever an example leaves running is ended with its file), a copy of the repository as the working directory, `pushlab` on PATH, a
/// fresh HOME, and `pushlab serve` running on its default ports (APNs 2197, Google host 8443
/// and 8080) — the emulator, its collector routes and its images. Blocks that start their own
/// `pushlab serve` get the ports to themselves.
struct ExampleLab {
    /// One command's verdict.
    struct Failure: CustomStringConvertible {
        var location: String
        var command: String
        var problem: String
        var output: String
        var description: String {
            "\(location): \(command)\n  \(problem)\n  printed:\n" +
                output.split(separator: "\n", omittingEmptySubsequences: false).prefix(40).map { "    | \($0)" }.joined(separator: "\n")
        }
    }

    struct Outcome {
        var commandsRun = 0
        var blocksRun = 0
        var failures: [Failure] = []
    }

    /// Files a reader's clean clone holds (tracked, plus new files not ignored), copied once.
    @discardableResult
    static func copyRepository(from root: URL, to destination: URL) throws -> Set<String> {
        let list = try ProcessRunner.run("/usr/bin/git", ["-C", root.path, "ls-files", "-z", "--cached", "--others", "--exclude-standard"])
        guard list.status == 0 else { throw LabError("git ls-files failed: \(list.stderr)") }
        let manager = FileManager.default
        var copied: Set<String> = []
        for relative in list.stdout.split(separator: "\0").map(String.init) {
            let source = root.appendingPathComponent(relative)
            guard manager.fileExists(atPath: source.path) else { continue }  // deleted, not yet committed
            copied.insert(relative)
            let target = destination.appendingPathComponent(relative)
            try manager.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try manager.copyItem(at: source, to: target)
        }
        // The committed dev keys are private again, as scripts/bootstrap leaves them.
        for key in ["certs/AuthKey_PLDEVKEY01.p8", "certs/server.key", "certs/untrusted.key", "certs/fcm-service-account.json"]
        where manager.fileExists(atPath: destination.appendingPathComponent(key).path) {
            try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: destination.appendingPathComponent(key).path)
        }
        return copied
    }

    /// Files the examples left in the repository copy that git would not ignore: a reader who
    /// follows the docs must not end up with untracked clutter in `git status`.
    static func leftovers(in repo: URL, copied: Set<String>, root: URL) throws -> [String] {
        var created: [String] = []
        let base = repo.standardizedFileURL.path + "/"
        if let walker = FileManager.default.enumerator(at: repo, includingPropertiesForKeys: [.isRegularFileKey]) {
            for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                let relative = String(url.standardizedFileURL.path.dropFirst(base.count))
                if !copied.contains(relative) { created.append(relative) }
            }
        }
        guard !created.isEmpty else { return [] }
        let ignored = try ProcessRunner.run("/usr/bin/git", ["-C", root.path, "check-ignore", "--no-index"] + created)
        let ignoredSet = Set(ignored.stdout.split(separator: "\n").map(String.init))
        return created.filter { !ignoredSet.contains($0) }.sorted()
    }

    struct LabError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    let pushlabBinary: String
    let repositoryRoot: URL

    /// Runs every runnable block of `examples` (one file's, in order); returns what failed.
    func run(_ examples: [ShellExample], name: String, timeout: TimeInterval = 150) throws -> Outcome {
        let runnable = examples.filter { $0.marker == nil }
        var outcome = Outcome()
        guard !runnable.isEmpty else { return outcome }
        // Inside the repository; when that is under /tmp, the lab binds it into its private /tmp.
        let lab = repositoryRoot.appendingPathComponent(".build/examples-lab/\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: lab) }
        let repo = lab.appendingPathComponent("repo")
        let copied = try ExampleLab.copyRepository(from: repositoryRoot, to: repo)
        for dir in ["bin", "home", "out", "tmp"] {
            try FileManager.default.createDirectory(at: lab.appendingPathComponent(dir), withIntermediateDirectories: true)
        }
        try FileManager.default.createSymbolicLink(atPath: lab.appendingPathComponent("bin/pushlab").path,
                                                   withDestinationPath: pushlabBinary)
        let binaryDirectory = URL(fileURLWithPath: pushlabBinary).resolvingSymlinksInPath().deletingLastPathComponent().path
        let script = ExampleLab.script(for: runnable, lab: lab.path, keep: [repositoryRoot.standardizedFileURL.path, binaryDirectory])
        let scriptFile = lab.appendingPathComponent("examples.sh")
        try script.write(to: scriptFile, atomically: true, encoding: .utf8)

        // Output goes to files, not pipes: a server left behind cannot hold the test up.
        // The script's output goes to a file, so a process an example leaves running cannot hold
        // a pipe of this test open; whatever still runs in the lab afterwards is ended below.
        let log = lab.appendingPathComponent("out/script.log").path
        let result = try ProcessRunner.run("/bin/bash", ["-c", "timeout -k 5 \(Int(timeout)) unshare -rnm /bin/bash \"$0\" > \"$1\" 2>&1", scriptFile.path, log],
                                           currentDirectory: repo.path, timeout: timeout + 10)
        ExampleLab.endProcesses(under: lab.path)
        let labLog = (try? String(contentsOf: lab.appendingPathComponent("out/lab.log"), encoding: .utf8)) ?? ""
        let scriptLog = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        if let cause = ExampleLab.startFailures[result.status] {
            throw LabError("\(name): the lab did not start: \(cause)\n\(scriptLog)\n\(labLog)")
        }
        if result.status == 98 {
            outcome.failures.append(Failure(location: name, command: "(the lab's own pushlab serve)", problem: "did not stop on SIGTERM within 20 s", output: scriptLog + "\n" + labLog))
        }
        if result.status == 124 || result.status == 137 {
            outcome.failures.append(Failure(location: name, command: "(the whole file)", problem: "did not finish within \(Int(timeout)) s", output: scriptLog))
        }

        for file in try ExampleLab.leftovers(in: repo, copied: copied, root: repositoryRoot) {
            outcome.failures.append(Failure(location: name, command: "(after its examples)",
                                            problem: "the examples leave \(file) in the repository, and git does not ignore it; write it under /tmp or add it to .gitignore",
                                            output: ""))
        }

        var number = 0
        for example in runnable {
            outcome.blocksRun += 1
            for command in example.commands {
                number += 1
                let location = "\(example.file):\(command.line)"
                let statusText = try? String(contentsOf: lab.appendingPathComponent("out/\(number).status"), encoding: .utf8)
                let output = (try? String(contentsOf: lab.appendingPathComponent("out/\(number).out"), encoding: .utf8)) ?? ""
                guard let statusText, let status = Int32(statusText.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                    outcome.failures.append(Failure(location: location, command: command.text, problem: "never ran (an earlier command hung or the lab stopped)", output: output + labLog))
                    continue
                }
                outcome.commandsRun += 1
                if status != command.expectedStatus {
                    outcome.failures.append(Failure(location: location, command: command.text,
                                                    problem: "exit status \(status), the docs expect \(command.expectedStatus)" +
                                                        (command.expectedStatus == 0 ? " (mark an expected failure with a trailing `# exit N`)" : ""),
                                                    output: output))
                }
                if let expected = command.expectedOutput {
                    var lines = output.components(separatedBy: "\n")
                    while lines.last?.trimmingCharacters(in: .whitespaces).isEmpty == true { lines.removeLast() }
                    if let problem = ExampleOutputMatcher.mismatch(expected: expected, actual: lines) {
                        outcome.failures.append(Failure(location: location, command: command.text, problem: problem, output: output))
                    }
                }
            }
        }
        return outcome
    }

    /// What stopped the lab, by the script's exit status (each stage exits with its own).
    static let startFailures: [Int32: String] = [
        97: "cannot bring loopback up in a private network namespace (`unshare -rn`, `ip link set lo up`)",
        96: "cannot mount its private /tmp (a tmpfs, with the repository and the pushlab binary bound in when they live under /tmp)",
        95: "its own directory is not visible inside its private /tmp (the repository under /tmp was not bound in)",
        94: "its `pushlab serve` did not start on the default ports (its output follows)",
    ]

    /// The bash script for one file's blocks: each command's output and status go to
    /// `out/N.out` and `out/N.status`. `keep`: directories that must stay visible at their own
    /// paths inside the private /tmp (the repository and the binary's, when under /tmp).
    static func script(for examples: [ShellExample], lab: String, keep: [String]) -> String {
        // A directory inside another kept one comes with it.
        let kept = keep.filter { path in (path + "/").hasPrefix("/tmp/") && !keep.contains { $0 != path && (path + "/").hasPrefix($0 + "/") } }
        let binds = Set(kept).sorted().map { path in
            "mkdir -p \"\(lab)/tmp/\(path.dropFirst(5))\" && mount --bind \"\(path)\" \"\(lab)/tmp/\(path.dropFirst(5))\" || exit 96\n"
        }.joined()
        var s = """
        # Generated by Tests/ExamplesTests: the examples of one Markdown file, in order.
        ip link set lo up || { echo "lab: cannot bring loopback up" >&2; exit 97; }
        # A private, empty /tmp: a tmpfs mounted in the lab first, the paths under /tmp that must
        # stay visible (a clone in /tmp) bound into it, then the whole of it over /tmp.
        mount -t tmpfs pushlab-lab-tmp "\(lab)/tmp" || exit 96
        \(binds)mount --rbind "\(lab)/tmp" /tmp || exit 96
        [ -d "\(lab)/out" ] || { echo "lab: \(lab) is hidden by the private /tmp" >&2; exit 95; }
        export HOME=\(lab)/home XDG_DATA_HOME=\(lab)/home/.local/share XDG_CONFIG_HOME=\(lab)/home/.config \
               PATH=\(lab)/bin:$PATH
        unset TMPDIR GOOGLE_APPLICATION_CREDENTIALS APNS_KEY_PATH APNS_TEAM_ID APNS_TOPIC APNS_KEY_ID
        OUT=\(lab)/out
        wait_for_lines() {  # file, count: poll (deadline 20 s) until the file holds count lines
          for _ in $(seq 400); do [ "$(wc -l < "$1" 2>/dev/null || echo 0)" -ge "$2" ] && return 0; sleep 0.05; done
          return 1
        }
        lab_start() {
          # Started from a subshell, so it is not a job of this shell: `kill %1` in a block then
          # means the block's own first job, as in the reader's terminal.
          LAB_PID=$( (pushlab serve > $OUT/lab.log 2>&1 & echo $!) )
          for _ in $(seq 400); do grep -q -e "^quick start" -e "device(s) from" $OUT/lab.log && return 0; sleep 0.05; done
          cat $OUT/lab.log >&2; exit 94
        }
        lab_stop() {  # not a child of this shell: wait by polling (deadline 20 s)
          kill -TERM $LAB_PID 2>/dev/null
          for _ in $(seq 400); do kill -0 $LAB_PID 2>/dev/null || return 0; sleep 0.05; done
          # Going on would start the next block's server beside it ("port 2197 in use").
          echo "the lab's pushlab serve (pid $LAB_PID) was still running 20 s after SIGTERM" >&2
          kill -KILL $LAB_PID 2>/dev/null; exit 98
        }
        stop_block() {  # the block's servers get Ctrl-C; its background jobs are ended
          # SIGTERM takes the same graceful path as Ctrl-C (a background job of a script ignores SIGINT).
          for n in "${!SERVERS[@]}"; do kill -TERM ${SERVERS[$n]} 2>/dev/null; wait ${SERVERS[$n]}; echo $? > $OUT/$n.status; done
          SERVERS=()
          for pid in $(jobs -p); do [ "$pid" != "$LAB_PID" ] && kill -TERM $pid 2>/dev/null; done
          wait_others
        }
        wait_others() { for pid in $(jobs -p); do [ "$pid" != "$LAB_PID" ] && wait $pid 2>/dev/null; done; }
        declare -A SERVERS
        lab_start

        """
        var number = 0
        for example in examples {
            s += "\n# \(example.location)\n"
            if example.startsEmulator { s += "lab_stop\n" }
            for command in example.commands {
                number += 1
                if command.isServer {
                    let startupLines = max(1, (command.expectedOutput ?? []).prefix { $0.trimmingCharacters(in: .whitespaces) != "…" }.count)
                    // Redirections first, so a trailing comment cannot swallow them; `$!` is the server itself.
                    s += "> $OUT/\(number).out 2>&1 < /dev/null \(ExampleLab.withoutTrailingComment(command.text)) &\nSERVERS[\(number)]=$!\n"
                    s += "wait_for_lines $OUT/\(number).out \(startupLines) || true\n"
                } else {
                    s += "{ \(command.text)\n} > $OUT/\(number).out 2>&1 < /dev/null; echo $? > $OUT/\(number).status\n"
                }
            }
            // A block's own `set -e` or EXIT trap ends with the block, as in the reader's shell
            // session the next block is typed into.
            s += "set +e; trap - EXIT\nstop_block\n"
            if example.startsEmulator { s += "lab_start\n" }
        }
        s += "lab_stop\n"
        return s
    }

    /// Kills every process whose working directory is inside the lab (what an example left running).
    static func endProcesses(under directory: String) {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return }
        for entry in entries {
            guard let pid = Int32(entry), pid != getpid(),
                  let cwd = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(entry)/cwd"),
                  cwd.hasPrefix(directory) else { continue }
            kill(pid, SIGKILL)
        }
    }

    /// The command without a `# comment` at the end of its last line, nor a trailing `&` (so
    /// the runner's own `&` can follow it).
    static func withoutTrailingComment(_ text: String) -> String {
        var lines = text.components(separatedBy: "\n")
        if let last = lines.last, let hash = last.range(of: " #") {
            lines[lines.count - 1] = String(last[..<hash.lowerBound])
        }
        var result = lines.joined(separator: "\n").trimmingCharacters(in: .whitespaces)
        if result.hasSuffix("&") { result = String(result.dropLast()).trimmingCharacters(in: .whitespaces) }
        return result
    }
}
