import Foundation
import PushCore

/// Replays a notification tap the way the Customer.io SDK's notification-center delegate
/// handles it (docs/specs/device-side.md §5), with the app described by an `AppProfile`:
/// `willPresent` in the foreground, cold-start delivery (§6), the `opened` metric into the
/// event pipeline (default action of a Customer.io push only, §3), deleting the push's
/// `cio_sdk_` image files, the deep link through the three tiers, the other delegates, and
/// the completion handler exactly once.
public struct TapHandler: Sendable {
    public var app: AppProfile
    public var deepLinks: DeepLinkProfile
    public var pipeline: EventPipeline
    public var identity: PipelineIdentity
    public var files: any TapFileRemover
    public var time: any TimeSource

    public init(app: AppProfile, deepLinks: DeepLinkProfile? = nil, pipeline: EventPipeline, identity: PipelineIdentity,
                files: any TapFileRemover = LocalTapFileRemover(), time: any TimeSource = SystemTimeSource()) {
        self.app = app
        self.deepLinks = deepLinks ?? app.deepLinks ?? DeepLinkProfile()
        self.pipeline = pipeline
        self.identity = identity
        self.files = files
        self.time = time
    }

    /// The iOS major version of the profile (`17.4` → 17).
    public var osMajorVersion: Int { Int(app.osVersion.split(separator: ".").first ?? "") ?? 17 }

    /// Handles `tap` on the push whose APNs payload is `payload`, with the attachments the NSE
    /// added. Queues `opened` into the pipeline but does not flush it.
    public func handle(payload: JSONValue, tap: Tap, attachments: [NotificationAttachment] = []) async -> TapOutcome {
        let cio = CIOPush(payload: payload)
        let link = cio?.link.flatMap { $0.isEmpty ? nil : $0 }
        var out = TapOutcome(tap: tap, isCustomerIOPush: cio != nil, presented: true, delivery: .notificationDelegate,
                             link: link, resolution: nil, destination: .appHome, openedEvent: nil, deletedImageFiles: [],
                             completionHandlerCalls: 0, steps: [], diagnostics: [])

        // Foreground: the push is shown only if willPresent presents it. The SDK decides for
        // its own pushes (showPushAppInForeground); other pushes are the app's call (shown here).
        if tap.state == .foreground {
            out.steps.append(.willPresent)
            if cio != nil && !deepLinks.showInForeground {
                out.presented = false
                out.delivery = .notPresented
                out.destination = .nothing
                out.diagnostics.append(.notShownInForeground)
                return out
            }
        }

        // §6: a cold-start tap may skip the delegate and arrive only in the launch options.
        if tap.state == .cold && deepLinks.coldStartTaps == .launchOptions {
            if deepLinks.handlesLaunchOptions {
                out.delivery = .launchOptions
            } else {
                out.delivery = .lost
                out.destination = tap.action == .default ? .appHome : .nothing
                out.diagnostics.append(.coldStartTapNotCounted)
                return out
            }
        }
        // The delegate path has a completion handler; the launch-options path has none.
        let hasCompletionHandler = out.delivery == .notificationDelegate

        guard let cio else {
            // Not ours: the SDK forwards to the app's other delegates, which call the
            // completion handler; with none, the SDK's proxy calls it so it runs exactly once.
            out.diagnostics.append(.notACustomerIOPush)
            out.destination = tap.action == .default ? .appHome : .nothing
            if !deepLinks.otherNotificationDelegates.isEmpty { out.steps.append(.otherDelegatesCalled) }
            if hasCompletionHandler { complete(&out) }
            return out
        }

        if tap.action == .default {
            // 1. opened metric (§3: default action only; automatic tracking on).
            if app.autoTrackPushEvents {
                let event = PipelineEvent.deliveryMetric(.opened, deliveryID: cio.deliveryID, recipient: cio.deliveryToken,
                                                         timestamp: time.now, identity: identity)
                await pipeline.enqueue(event)
                out.openedEvent = event
                out.steps.append(.openedMetricQueued)
            } else {
                out.diagnostics.append(.automaticTrackingOff)
            }
            // 2. delete this push's SDK image files (errors ignored, as the SDK does).
            for attachment in attachments where attachment.isSDKAttachment {
                if (try? files.removeItem(atPath: attachment.path)) != nil { out.deletedImageFiles.append(attachment.path) }
            }
            out.steps.append(.imageFilesDeleted)
            // 3. the deep link.
            if let link {
                let resolution = DeepLinkRouter(profile: deepLinks, osMajorVersion: osMajorVersion).resolve(link, state: tap.state)
                out.resolution = resolution
                out.destination = resolution.destination
                out.diagnostics.append(contentsOf: resolution.diagnostics)
                out.steps.append(.deepLinkHandled)
            } else {
                out.destination = .appHome
                out.diagnostics.append(.noLink)
            }
        } else {
            out.destination = .nothing
            out.diagnostics.append(.noOpenedMetricForAction(action: tap.action.description))
        }
        // 4. the app's other delegates, 5. the completion handler.
        if !deepLinks.otherNotificationDelegates.isEmpty { out.steps.append(.otherDelegatesCalled) }
        if hasCompletionHandler { complete(&out) }
        return out
    }

    private func complete(_ out: inout TapOutcome) {
        out.completionHandlerCalls += 1
        out.steps.append(.completionHandlerCalled)
    }
}
