import Foundation
import PushCore
import Synchronization

/// Where the SDK keeps its state between launches (docs/specs/retainza.md §2): one value per
/// `engage.*.v1` key. Consent and opt-out are never written here.
public protocol RetainzaStorage: Sendable {
    func value(_ key: RetainzaContract.StorageKey) -> JSONValue?
    func set(_ value: JSONValue?, _ key: RetainzaContract.StorageKey)
}

/// `storage: nil` (and `InMemoryStorage()`): gone with the process.
public final class RetainzaMemoryStorage: RetainzaStorage {
    private let values = Mutex<[RetainzaContract.StorageKey: JSONValue]>([:])
    public init() {}
    public func value(_ key: RetainzaContract.StorageKey) -> JSONValue? { values.withLock { $0[key] } }
    public func set(_ value: JSONValue?, _ key: RetainzaContract.StorageKey) { values.withLock { $0[key] = value } }
}

/// The default `UserDefaultsStorage()`: the app's `UserDefaults.standard`, emulated as one JSON
/// file (`<container>/Library/Preferences/<bundle id>.json`) rewritten atomically on every
/// change, so a process killed at any moment leaves the old or the new state.
public final class RetainzaUserDefaultsStorage: RetainzaStorage {
    public let path: String
    private let values: Mutex<[String: JSONValue]>

    public init(container: String, bundleID: String) throws {
        let dir = container + "/Library/Preferences"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        path = dir + "/" + bundleID + ".json"
        var loaded: [String: JSONValue] = [:]
        if let data = FileManager.default.contents(atPath: path),
           let object = (try? JSONDocument.parse(Array(data)))?.root.objectValue {
            for m in object.members { loaded[m.key] = m.value }
        }
        values = Mutex(loaded)
    }

    public func value(_ key: RetainzaContract.StorageKey) -> JSONValue? { values.withLock { $0[key.rawValue] } }

    public func set(_ value: JSONValue?, _ key: RetainzaContract.StorageKey) {
        values.withLock { v in
            v[key.rawValue] = value
            let object = JSONValue.object(JSONObject(v.keys.sorted().map { JSONMember(key: $0, value: v[$0]!) }))
            // Atomic replace: a temporary file renamed over the old one.
            try? Data(object.minifiedBytes()).write(to: URL(fileURLWithPath: path), options: .atomic)
        }
    }

    /// The keys present in the file, for `pushlab retainza` and tests.
    public var storedKeys: [String] { values.withLock { $0.keys.sorted() } }
}
