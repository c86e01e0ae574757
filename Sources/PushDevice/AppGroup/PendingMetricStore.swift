import Foundation

/// One delivered metric the extension promised to report, kept in the App Group until it is
/// acknowledged (docs/specs/device-side.md §4). The coding keys and types match the reference SDK's
/// `pending_push_delivery_metrics.json` rows.
public struct PendingDeliveryMetric: Sendable, Hashable, Codable {
    public var id: UUID
    public var deliveryID: String
    /// The push's `CIO-Delivery-Token` (the device token the metric reports as recipient).
    public var deviceID: String
    public var event: String
    public var timestamp: Date

    public init(id: UUID = UUID(), deliveryID: String, deviceID: String, event: String = "delivered", timestamp: Date) {
        self.id = id
        self.deliveryID = deliveryID
        self.deviceID = deviceID
        self.event = event
        self.timestamp = timestamp
    }

    enum CodingKeys: String, CodingKey {
        case id
        case deliveryID = "delivery_id"
        case deviceID = "device_id"
        case event
        case timestamp
    }
}

/// What happened to an appended row.
public enum PendingAppendOutcome: Sendable, Equatable {
    /// Written; `droppedOldest` rows fell off the cap to make room.
    case stored(droppedOldest: Int)
    /// The `sqlite` store already holds a row for this delivery id.
    case duplicate
    /// No store in this process (kind `off`, no container, or a group id that was never provisioned).
    case disabled(reason: String)

    public var isStored: Bool { if case .stored = self { return true } else { return false } }
}

/// The App Group store the extension writes before reporting and the host app drains at launch.
/// Implementations are safe to use from two processes at once (file lock / SQLite transactions).
public protocol PendingMetricStore: Sendable {
    var kind: AppGroupStoreKind { get }
    /// The file behind the store, if any.
    var path: String? { get }
    /// Appends a row; the cap policy of the kind applies.
    func append(_ metric: PendingDeliveryMetric) throws(PendingMetricStoreError) -> PendingAppendOutcome
    /// Every row, oldest first.
    func loadAll() throws(PendingMetricStoreError) -> [PendingDeliveryMetric]
    /// Removes the rows with these ids; returns how many were removed.
    @discardableResult
    func remove(ids: Set<UUID>) throws(PendingMetricStoreError) -> Int
    /// Rows dropped by the cap since the store was created (nil when the kind does not count them).
    func droppedCount() throws(PendingMetricStoreError) -> Int?
}

/// Why a store operation failed.
public enum PendingMetricStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    case cannotCreateDirectory(path: String, errno: Int32)
    case cannotLock(path: String, errno: Int32)
    case writeFailed(path: String, errno: Int32)
    case database(String)

    public var reason: String {
        switch self {
        case .cannotCreateDirectory(let path, let e): return "cannot create \(path): \(String(cString: strerror(e)))"
        case .cannotLock(let path, let e): return "cannot lock \(path): \(String(cString: strerror(e)))"
        case .writeFailed(let path, let e): return "cannot write \(path): \(String(cString: strerror(e)))"
        case .database(let why): return "App Group SQLite store: \(why)"
        }
    }

    public var fix: String { "check that --container names a writable directory" }
    public var description: String { "\(reason)\n  fix: \(fix)" }
}

/// The store that is not there: kind `off`, no container, or a wrong App Group id.
public struct DisabledPendingMetricStore: PendingMetricStore {
    public let reason: String
    public init(reason: String) { self.reason = reason }
    public var kind: AppGroupStoreKind { .off }
    public var path: String? { nil }
    public func append(_ metric: PendingDeliveryMetric) throws(PendingMetricStoreError) -> PendingAppendOutcome { .disabled(reason: reason) }
    public func loadAll() throws(PendingMetricStoreError) -> [PendingDeliveryMetric] { [] }
    public func remove(ids: Set<UUID>) throws(PendingMetricStoreError) -> Int { 0 }
    public func droppedCount() throws(PendingMetricStoreError) -> Int? { nil }
}

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
        case .cio: return try CIOPendingMetricFile(directory: dir)
        case .sqlite: return try SQLitePendingMetricStore(directory: dir, cap: profile.sqliteStoreCap)
        case .off: return DisabledPendingMetricStore(reason: "appGroupStore is off")
        }
    }
}
