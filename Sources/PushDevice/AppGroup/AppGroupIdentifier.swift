import Foundation

/// How a process arrives at its App Group id (docs/specs/device-side.md §4).
public struct AppGroupResolution: Sendable, Equatable, Codable {
    /// The id the process uses.
    public var groupID: String
    /// True when inferred from the bundle id (no `appGroupId` in the profile).
    public var inferred: Bool
    /// The suffix stripped from the bundle id, if one matched.
    public var strippedSuffix: String?
    /// The group the container directory stands for (the one provisioned for the app).
    public var provisionedGroupID: String
    /// False when the process's group id is not the provisioned one: on iOS the container URL
    /// is nil and the SDK's store is silently off.
    public var containerAvailable: Bool { groupID == provisionedGroupID }
}

public enum AppGroupIdentifier {
    /// The extension suffixes the reference SDK strips, in its order; the first match wins and
    /// the comparison is case-sensitive (docs/specs/device-side.md §4).
    public static let extensionSuffixes = [".richpush", ".NotificationServiceExtension", ".NotificationService", ".richPush"]

    /// `group.<main bundle id>.cio`, where the main bundle id is `bundleID` minus the first
    /// matching extension suffix. Returns the id and the suffix stripped.
    public static func infer(fromBundleID bundleID: String) -> (groupID: String, strippedSuffix: String?) {
        for suffix in extensionSuffixes where bundleID.hasSuffix(suffix) && bundleID.count > suffix.count {
            return ("group.\(bundleID.dropLast(suffix.count)).cio", suffix)
        }
        return ("group.\(bundleID).cio", nil)
    }
}

extension AppProfile {
    /// The group the app was provisioned with: the configured id, else the one Customer.io's
    /// setup guide tells developers to create, `group.<main bundle id>.cio`.
    public var provisionedAppGroupID: String { appGroupID ?? "group.\(bundleID).cio" }

    /// The App Group id `process` uses: the configured one, else inferred from that process's
    /// own bundle id. An extension whose suffix is not one of the four infers a group that was
    /// never provisioned, so its store is off — silently, as on iOS.
    public func appGroup(for process: HostProcess) -> AppGroupResolution {
        if let configured = appGroupID {
            return AppGroupResolution(groupID: configured, inferred: false, strippedSuffix: nil, provisionedGroupID: configured)
        }
        let bundle = process == .app ? bundleID : extensionBundleID
        let (group, suffix) = AppGroupIdentifier.infer(fromBundleID: bundle)
        return AppGroupResolution(groupID: group, inferred: true, strippedSuffix: suffix, provisionedGroupID: provisionedAppGroupID)
    }
}
