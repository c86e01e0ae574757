import Foundation

/// pushlab's own files — the dev certificates and keys (`certs/`) and the sample payloads, app
/// profiles and images (`payloads/`) — found in one place, which every default path resolves
/// through (`serve --cert`, its images, the relay's emulator keys, the demo's and simulate's files).
///
/// Looked for as installed tools look for theirs, from the running binary rather than the
/// current directory or `argv[0]` (just `pushlab` after a PATH lookup):
/// 1. installed: `PREFIX/share/pushlab` beside `PREFIX/bin/pushlab`, from the binary's real path
///    (`/proc/self/exe`, symlinks resolved, so `~/bin/pushlab -> PREFIX/bin/pushlab` works too);
/// 2. `PUSHLAB_HOME`: a directory holding `certs/` and `payloads/`, for a binary copied elsewhere;
/// 3. the source tree the binary was built in (`.build/<config>/pushlab` → the repository).
/// User data never lives here (README "Where things live"): history and relay data are under
/// `UserDirectories.data`, profiles and saved pushes under `UserDirectories.config`.
enum ProjectFiles {
    /// The directory holding `certs/` and `payloads/`, or nil when none of the places has them.
    static let root: String? = locate(executable: executablePath, environment: ProcessInfo.processInfo.environment)

    /// The running binary's real path.
    static let executablePath: String? = {
        #if os(Linux)
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
        #endif
        return Bundle.main.executableURL?.resolvingSymlinksInPath().path
    }()

    /// The places searched, in order, each with what it is (for the error when none fits).
    static func candidates(executable: String?, environment: [String: String]) -> [(path: String, what: String)] {
        var candidates: [(String, String)] = []
        if let executable {
            let bin = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
            candidates.append((bin.deletingLastPathComponent().path + "/share/pushlab", "installed beside \(executable)"))
            if let home = environment["PUSHLAB_HOME"], !home.isEmpty { candidates.append((home, "PUSHLAB_HOME")) }
            // .build/<triple>/<config>/pushlab or .build/<config>/pushlab → the repository root.
            var dir = bin
            for _ in 0..<4 {
                dir.deleteLastPathComponent()
                candidates.append((dir.path, "the source tree of \(executable)"))
            }
        } else if let home = environment["PUSHLAB_HOME"], !home.isEmpty {
            candidates.append((home, "PUSHLAB_HOME"))
        }
        return candidates
    }

    static func locate(executable: String?, environment: [String: String]) -> String? {
        candidates(executable: executable, environment: environment).first { holdsFiles($0.path) }?.path
    }

    /// True when `directory` has pushlab's files.
    static func holdsFiles(_ directory: String) -> Bool {
        let fm = FileManager.default
        return fm.fileExists(atPath: directory + "/certs/ca.pem") && fm.fileExists(atPath: directory + "/payloads")
    }

    /// The files' directory, or an error that says where it looked and how to fix it.
    static func require(_ what: String) throws -> String {
        guard let root else { throw missing(what) }
        return root
    }

    static func missing(_ what: String) -> UsageError {
        let environment = ProcessInfo.processInfo.environment
        let all = candidates(executable: executablePath, environment: environment)
        var looked = all.filter { $0.what != "PUSHLAB_HOME" }.prefix(1).map(\.path)
        looked.append(all.first { $0.what == "PUSHLAB_HOME" }.map { "PUSHLAB_HOME=\($0.path)" } ?? "PUSHLAB_HOME (not set)")
        if let executablePath { looked.append("the source tree above \(executablePath)") }
        return UsageError("cannot find pushlab's \(what) (certs/ and payloads/); looked in " + looked.joined(separator: ", "), fix: missingFix)
    }

    static let missingFix = "reinstall with 'make install PREFIX=…' (its files go to PREFIX/share/pushlab), or set PUSHLAB_HOME to a directory holding certs/ and payloads/"

    /// A default file or directory such as `certs/server.pem` or `payloads/assets`, inside
    /// pushlab's files; the relative path as given only when the files were not found (the
    /// command's "cannot read" error then says so).
    static func defaultFile(_ relative: String) -> String {
        guard let root else { return relative }
        return root + "/" + relative
    }
}
