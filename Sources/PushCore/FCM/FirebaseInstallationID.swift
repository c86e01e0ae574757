import Foundation

/// The shape of a Firebase Installation ID (FID), the `fid` target (docs/specs/fcm.md
/// "`fid` beside `token`, `topic`, `condition`"): 22 base64url characters whose first 4 bits
/// are the FID header 0b0111, so the first character is c, d, e or f (`^[cdef][\w-]{21}$`).
public enum FirebaseInstallationID {
    public static let length = 22

    public static func isValid(_ fid: String) -> Bool {
        let u = Array(fid.utf8)
        guard u.count == length, let first = u.first else { return false }
        return (UInt8(ascii: "c")...UInt8(ascii: "f")).contains(first) && u.allSatisfy(DeviceToken.isURLSafe)
    }

    /// What is wrong with `fid` as an installation id, or nil when its shape fits.
    public static func problem(_ fid: String) -> (message: String, fix: String)? {
        if isValid(fid) { return nil }
        if fid.isEmpty {
            return ("the FID is empty", "pass the app's Firebase Installation ID (Installations.installations().installationID on iOS, FirebaseInstallations.getInstance().id on Android)")
        }
        if DeviceToken.classify(fid) == .apns {
            return ("this is an APNs device token (\(fid.count) hex characters), not a Firebase Installation ID",
                    "send the app's FID (22 characters), or send the APNs token through pushlab send apns")
        }
        if DeviceToken.classify(fid) == .fcm {
            return ("this is an FCM registration token, not a Firebase Installation ID (22 characters)",
                    "send it as the token target (--token), or send the app's FID" + (fid.contains(":") ? " (a registration token usually starts with the FID before its ':')" : ""))
        }
        return ("\"\(fid.count > 40 ? String(fid.prefix(40)) + "…" : fid)\" is not a Firebase Installation ID: an FID is 22 base64url characters (A–Z a–z 0–9 - _) starting with c, d, e or f",
                "copy the FID exactly as the app's Firebase Installations SDK returns it")
    }
}
