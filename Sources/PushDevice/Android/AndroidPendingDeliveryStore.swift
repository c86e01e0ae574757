import Foundation
import PushCore
import PushStore
import Synchronization

/// The SDK's pending store (`PendingDeliveryStore`, docs/specs/android-side.md §4): one JSON
/// file `<filesDir>/cio_pending_push_delivery.json`, `[{"deliveryId":"…","token":"…"}]` in
/// insertion order, at most 100 entries (oldest dropped first), an unreadable file read as
/// empty, and writes skipped when nothing changed. `claim` removes an entry and says whether
/// it was there, under one lock.
public final class AndroidPendingDeliveryStore: Sendable {
    public typealias Entry = AndroidSDKContract.PendingEntry

    public let fileURL: URL
    /// Written in place and exchanged with the file on every change (`SpareFileReplacement`),
    /// so a change neither creates nor frees an inode; the file itself stays the SDK's.
    private let sparePath: String
    public let capacity: Int
    /// Entries dropped at the cap since this store object was created (the SDK keeps no count;
    /// the emulator does, so a report can say what the cap cost).
    public var droppedAtCap: Int { lock.withLock { $0 } }
    private let lock = Mutex(0)

    /// The store inside the app's `filesDir` (created when missing).
    public init(filesDir: URL, capacity: Int = AndroidSDKContract.pendingStoreCapacity) throws {
        try FileManager.default.createDirectory(at: filesDir, withIntermediateDirectories: true)
        fileURL = filesDir.appendingPathComponent(AndroidSDKContract.pendingStoreFileName)
        sparePath = filesDir.appendingPathComponent("." + AndroidSDKContract.pendingStoreFileName + ".swap").path
        self.capacity = capacity
    }

    public func append(_ entry: Entry) {
        lock.withLock { dropped in
            var entries = readAll()
            entries.append(entry)
            while entries.count > capacity {
                entries.removeFirst()
                dropped += 1
            }
            writeAll(entries)
        }
    }

    public func loadAll() -> [Entry] { lock.withLock { _ in readAll() } }

    /// Removes the entry; no write when it was not there.
    public func remove(_ deliveryID: String) {
        _ = claim(deliveryID)
    }

    /// Removes the entry and returns whether this call removed it.
    public func claim(_ deliveryID: String) -> Bool {
        lock.withLock { _ in
            let entries = readAll()
            let kept = entries.filter { $0.deliveryId != deliveryID }
            guard kept.count != entries.count else { return false }
            writeAll(kept)
            return true
        }
    }

    private func readAll() -> [Entry] {
        guard let data = FileManager.default.contents(atPath: fileURL.path),
              !String(decoding: data, as: UTF8.self).allSatisfy(\.isWhitespace) else { return [] }
        return (try? JSONDecoder().decode([Entry].self, from: data)) ?? []
    }

    private func writeAll(_ entries: [Entry]) {
        try? SpareFileReplacement.replace(fileURL.path, spare: sparePath, with: AndroidSDKContract.pendingStoreBytes(entries))
    }
}
