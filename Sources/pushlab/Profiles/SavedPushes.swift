import Foundation
import PushCore

/// Saved pushes: payload files named after the push, in `pushes/` beside the config, so a team
/// can keep them in git. A saved push is an ordinary APNs payload or FCM message file.
struct SavedPushes {
    let directory: String

    init(configPath: String) {
        directory = UserConfig.pushesDirectory(forConfig: configPath)
    }

    /// Names are file-name safe: letters, digits, `-`, `_` and `.` (not leading).
    static func checkName(_ name: String) throws {
        let allowed = name.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || "-_.".unicodeScalars.contains($0) }
        guard !name.isEmpty, allowed, !name.hasPrefix("."), name.count <= 100 else {
            throw UsageError("'\(name)' is not a valid push name", fix: "use letters, digits, -, _ and . (e.g. welcome-rich)")
        }
    }

    func path(of name: String) throws -> String {
        try Self.checkName(name)
        let file = directory + "/\(name).json"
        guard FileManager.default.fileExists(atPath: file) else {
            let known = (try? list()) ?? []
            throw UsageError("no saved push named '\(name)' in \(directory)",
                             fix: known.isEmpty ? "save one with 'pushlab push save \(name) payload.json'" : "use one of \(known.joined(separator: ", "))")
        }
        return file
    }

    func list() throws -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        return names.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
    }

    /// Stores `bytes` (already checked to be a JSON object) as the push `name`.
    func save(_ name: String, bytes: [UInt8], replace: Bool) throws -> String {
        try Self.checkName(name)
        let file = directory + "/\(name).json"
        if !replace, FileManager.default.fileExists(atPath: file) {
            throw UsageError("a saved push named '\(name)' exists (\(file))", fix: "pass --force to replace it, or choose another name")
        }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: file), options: .atomic)
        } catch {
            throw UsageError("\(file): cannot write (\(error.localizedDescription))", fix: "check the directory's permissions, or pass another --config")
        }
        return file
    }

    func remove(_ name: String) throws {
        let file = try path(of: name)
        try? FileManager.default.removeItem(atPath: file)
    }
}
