import Foundation

/// Opens the store a process sees in a shared container directory.
public enum PendingMetricStores {
    /// The reference SDK's sub-directory inside the App Group container.
    public static let subdirectory = "io.customer"

    /// The store `process` of `profile` uses in `container` (the App Group container directory
    /// shared by the extension and the app). Off when the kind is `off`, when there is no
    /// container, or when the process resolves a group id that was never provisioned.
    public static func open(profile: AppProfile, process: HostProcess, container: URL?) throws(PendingMetricStoreError) -> any PendingMetricStore {
        if profile.appGroupStore == .off { return DisabledPendingMetricStore(reason: "appGroupStore is off") }
        guard let container else { return DisabledPendingMetricStore(reason: "no App Group container (pass --container DIR)") }
        let group = profile.appGroup(for: process)
        guard group.containerAvailable else {
            return DisabledPendingMetricStore(reason: "\(process == .app ? "app" : "extension") resolves App Group '\(group.groupID)', "
                + "but the container is '\(group.provisionedGroupID)' (extension bundle id suffix not one of "
                + "\(AppGroupIdentifier.extensionSuffixes.joined(separator: ", ")); set appGroupId)")
        }
        let dir = container.appendingPathComponent(subdirectory, isDirectory: true)
        switch profile.appGroupStore {
        case .cio: return try CIOPendingMetricFile(directory: dir, keepsIntactRowsOfDamagedFile: profile.sdkMode == .improved)
        case .sqlite: return try SQLitePendingMetricStore(directory: dir, cap: profile.sqliteStoreCap)
        case .off: return DisabledPendingMetricStore(reason: "appGroupStore is off")
        }
    }
}
