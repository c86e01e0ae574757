import Foundation

/// The warning printed when a private-key file (APNs .p8, FCM service account) can be read by
/// the group or by everyone: anyone on the machine could then sign pushes as the app's team.
/// A warning, not an error: the send goes on (issue 11, secrets).
enum KeyFilePermissions {
    /// The mode bits that must be clear on a key file (group and other: rwx).
    static let sharedBits: UInt16 = 0o077

    /// The warning text for `path`, or nil when the file is private (or its mode is unknown).
    static func warning(for path: String, flag: String) -> String? {
        guard path != "-",
              let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let mode = (attributes[.posixPermissions] as? NSNumber)?.uint16Value,
              mode & sharedBits != 0 else { return nil }
        let octal = String(mode & 0o777, radix: 8)
        return "warning: \(flag) \(path) is readable by other users (mode \(octal)); "
            + "it holds a private key. Fix: chmod 600 \(path)"
    }

    static func warnIfShared(_ path: String, flag: String) {
        if let text = warning(for: path, flag: flag) { printError("pushlab: \(text)") }
    }
}
