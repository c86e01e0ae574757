import Foundation

/// Finds pushlab's own files (dev certificates, sample payloads and profiles) whether the tool
/// runs from the repository root, as `.build/<config>/pushlab` from anywhere, or installed by
/// `make install` (PREFIX/bin/pushlab with its files in PREFIX/share/pushlab).
enum ProjectFiles {
    /// The directory holding `certs/` and `payloads/`, or nil. PUSHLAB_HOME names it explicitly.
    static let root: String? = {
        let fm = FileManager.default
        if let home = ProcessInfo.processInfo.environment["PUSHLAB_HOME"], !home.isEmpty { return home }
        var candidates = [fm.currentDirectoryPath]
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        candidates.append(executable.deletingLastPathComponent().deletingLastPathComponent().path + "/share/pushlab")
        // .build/<triple>/<config>/pushlab or .build/<config>/pushlab → the repository root.
        var dir = executable.deletingLastPathComponent()
        for _ in 0..<5 {
            candidates.append(dir.path)
            dir.deleteLastPathComponent()
        }
        return candidates.first { fm.fileExists(atPath: $0 + "/certs/ca.pem") && fm.fileExists(atPath: $0 + "/payloads") }
    }()

    static func require(_ what: String) throws -> String {
        guard let root else {
            throw UsageError("cannot find pushlab's \(what) (certs/ and payloads/)",
                             fix: "run pushlab from its repository, or pass the paths explicitly (see --help)")
        }
        return root
    }

    /// A default file such as `certs/server.pem`: inside pushlab's own files when they are found
    /// (so `serve` works from any directory), else the relative path as given.
    static func defaultFile(_ relative: String) -> String {
        guard let root, FileManager.default.fileExists(atPath: root + "/" + relative) else { return relative }
        return root + "/" + relative
    }
}
