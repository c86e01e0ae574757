import Foundation

/// Finds pushlab's own files (dev certificates, sample payloads and profiles) whether the tool
/// runs from the repository root or as `.build/<config>/pushlab` from anywhere.
enum ProjectFiles {
    /// The directory holding `certs/` and `payloads/`, or nil.
    static let root: String? = {
        let fm = FileManager.default
        var candidates = [fm.currentDirectoryPath]
        // .build/<triple>/<config>/pushlab or .build/<config>/pushlab → the repository root.
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
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
}
