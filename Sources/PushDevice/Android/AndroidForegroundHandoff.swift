import Foundation
import PushCore
import PushHTTP

/// The SDK's foreground hand-off (`ModuleMessagingPushFCM`, on every process `ON_START`): for
/// each pending entry, cancel its WorkManager job, claim it, and publish a `Delivered` push
/// metric on the analytics pipeline (docs/specs/android-side.md §4).
public enum AndroidForegroundHandoff {
    /// Claims every pending entry and queues it on `pipeline`; returns the entries it claimed.
    public static func run(store: AndroidPendingDeliveryStore, pipeline: EventPipeline, mode: AndroidSDKMode,
                           identity: PipelineIdentity) async -> [AndroidSDKContract.PendingEntry] {
        guard mode != .cioAndroidLegacy else { return [] }
        var claimed: [AndroidSDKContract.PendingEntry] = []
        for pending in store.loadAll() where store.claim(pending.deliveryId) {
            // improved: the same messageId as the worker's request, so the server can drop a repeat.
            let messageId = mode == .improved ? CIOMetricBody.dedupKey(deliveryID: pending.deliveryId) : UUID().uuidString
            await pipeline.enqueue(.deliveryMetric(.delivered, deliveryID: pending.deliveryId, recipient: pending.token,
                                                   timestamp: Date(), identity: identity, messageId: messageId))
            claimed.append(pending)
        }
        return claimed
    }
}
