/// Where the SDK keeps its queue, session, install id and push record (docs/specs/retainza.md §2).
public enum RetainzaStorageKind: String, CaseIterable, Codable, Sendable {
    /// The default `UserDefaultsStorage()`: the `engage.*.v1` keys, kept across launches.
    case userDefaults
    /// `storage: nil`: memory-only, gone when the process ends.
    case memory
}
