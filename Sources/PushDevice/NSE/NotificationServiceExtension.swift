import Foundation
import PushCore
import PushHTTP

/// The two pieces of work an extension run does in parallel (docs/specs/device-side.md §2 step 2).
public enum NSEWork: Sendable, Hashable { case image, metric }

/// The Notification Service Extension with the Customer.io SDK inside (docs/specs/device-side.md §1–2),
/// run on Linux. Time comes from an `NSEClock`, the network from an `HTTPTransport`.
public struct NotificationServiceExtension: Sendable {
    public var configuration: NSEConfiguration
    public var transport: any HTTPTransport
    public var clock: any NSEClock
    public var wallClock: any TimeSource
    public var identifiers: any IdentifierSource

    public init(configuration: NSEConfiguration, transport: any HTTPTransport, clock: any NSEClock = ScaledClock(),
                wallClock: any TimeSource = SystemTimeSource(), identifiers: any IdentifierSource = SystemIdentifierSource()) {
        self.configuration = configuration
        self.transport = transport
        self.clock = clock
        self.wallClock = wallClock
        self.identifiers = identifiers
    }

    private enum Trigger: Sendable { case imageDone, metricDone, softDeadline, expiry, kill }

    /// Runs the extension for one push (an APNs payload) and reports what the phone shows.
    public func run(payload: JSONValue) async -> NSERunReport {
        let profile = configuration.profile
        let origin = clock.now()
        let state = ExtensionRunState(clock: clock, origin: origin)
        var report = NSERunReport(
            sdkMode: profile.sdkMode, budgetMs: configuration.budget.milliseconds, extensionRan: false, handled: false,
            expired: false, killed: false, contentHandlerCalls: 0, delivered: .original,
            image: .noImage, metric: DeliveredMetricOutcome(url: nil, result: .skipped, attempts: []),
            pendingRow: PendingRowReport(store: configuration.store.kind, stored: false, removed: false), timeline: [])
        let aps = APS(payload: payload)
        let original = displayed(aps: aps, payload: payload, attachments: [])
        state.log("push received")

        // iOS runs the extension only for mutable-content 1 with an alert (§2).
        guard let aps, aps.runsServiceExtension else {
            let shows = aps?.showsAlert ?? false
            report.note = shows ? "aps.mutable-content is not 1: iOS does not run the extension; no image, no delivered metric"
                                : "no alert to show: iOS does not run the extension"
            report.delivered = shows ? .original : .nothing
            report.notification = shows ? original : nil
            state.log(report.note!)
            report.timeline = state.snapshot.timeline
            return report
        }
        report.extensionRan = true
        state.log("iOS starts the extension (budget \(configuration.budget.milliseconds) ms)")
        let killAt = configuration.killAt.map { origin + $0 }
        if let killAt, clock.now() >= killAt { return killedEarly(report, state, original) }

        // §1: not a Customer.io push → "not handled"; the SDK leaves the content to the app.
        guard let push = CIOPush(payload: payload) else {
            report.note = "not a Customer.io push (no string CIO-Delivery-ID and CIO-Delivery-Token): the SDK reports not handled and leaves the content untouched"
            state.log(report.note!)
            report.notification = original
            report.timeline = state.snapshot.timeline
            return report
        }
        report.handled = true
        report.deliveryID = push.deliveryID
        state.log("Customer.io push \(push.deliveryID): handled by the SDK")

        // §2 step 1: the pending row goes in before the metric is sent.
        let pendingID = profile.autoTrackPushEvents ? writePendingRow(push, state: state, report: &report) : nil
        if !profile.autoTrackPushEvents { state.log("autoTrackPushEvents is off: no delivered metric, no pending row") }

        // §2 step 2: metric and image in parallel, raced against expiry and kill.
        let (triggers, trigger) = AsyncStream<Trigger>.makeStream()
        let budgetEnd = origin + configuration.budget
        let improved = profile.sdkMode == .improved
        let workDeadline = improved ? budgetEnd - configuration.improvedReserve : budgetEnd
        var tasks: [Task<Void, Never>] = []
        let wantsMetric = profile.autoTrackPushEvents
        if wantsMetric { tasks.append(startMetricTask(push, pendingID: pendingID, deadline: workDeadline, state: state, trigger: trigger)) }
        let wantsImage = push.image.map { !$0.isEmpty } ?? false
        if wantsImage, let url = push.image { tasks.append(startImageTask(url, deadline: workDeadline, state: state, trigger: trigger)) }
        tasks += startTimers(budgetEnd: budgetEnd, softDeadline: improved ? workDeadline : nil, killAt: killAt, trigger: trigger)
        if !wantsImage && !wantsMetric { trigger.yield(.metricDone) }

        let ending = await firstEnding(of: triggers, wantsImage: wantsImage, wantsMetric: wantsMetric)
        trigger.finish()

        switch ending {
        case .kill:
            state.kill("extension process killed (--kill-at): nothing after this happens")
            tasks.forEach { $0.cancel() }
            return killedEarly(report, state, original, imageURL: wantsImage ? push.image : nil)
        case .expiry, .softDeadline:
            state.cancelInFlight()
            tasks.forEach { $0.cancel() }
            logDeadline(ending, report: &report, state: state)
        default:
            tasks.forEach { $0.cancel() }
        }

        callContentHandler(&report, state: state, push: push, aps: aps, payload: payload, original: original,
                           wantsImage: wantsImage, wantsMetric: wantsMetric)
        return report
    }

    /// §2 step 2, the metric half: sends the delivered metric; an acknowledged one removes its pending row (§2 step 4).
    private func startMetricTask(_ push: CIOPush, pendingID: UUID?, deadline: Duration, state: ExtensionRunState,
                                 trigger: AsyncStream<Trigger>.Continuation) -> Task<Void, Never> {
        let profile = configuration.profile
        let onSettled = configuration.onSettled
        let reporter = DeliveredMetricReporter(profile: profile, transport: transport, clock: clock, wallClock: wallClock)
        let store = configuration.store
        clock.join()
        return Task {
            defer { clock.leave() }
            state.log("delivered metric: POST \(reporter.request(deliveryID: push.deliveryID, deliveryToken: push.deliveryToken).url)")
            let settled = await reporter.send(deliveryID: push.deliveryID, deliveryToken: push.deliveryToken, deadline: deadline) { attempt in
                state.addMetricAttempt(attempt)
                state.log("delivered metric attempt: " + (attempt.status.map { "HTTP \($0)" } ?? attempt.error ?? "no answer"))
            }
            // Still in flight at the deadline: the deadline ends the run and cancels it.
            guard let outcome = settled else { return }
            // §2 step 4: only an acknowledged metric removes its pending row.
            state.settleMetric(outcome) { pendingID.map { (try? store.remove(ids: [$0])) == 1 } ?? false }
            onSettled?(.metric)
            trigger.yield(.metricDone)
        }
    }

    /// §2 step 2, the image half: downloads the image with the SDK's own timeout. A download
    /// that ends at the work deadline or later — the SDK's timeout included, which for a budget
    /// of 30 s or less falls after iOS's expiry — does not end the run: the deadline does, and
    /// cancels it (§2 step 5). So the expiry wins a stall past the budget whatever the machine's
    /// load, and an image ready before the deadline wins, on every clock.
    private func startImageTask(_ url: String, deadline: Duration, state: ExtensionRunState,
                                trigger: AsyncStream<Trigger>.Continuation) -> Task<Void, Never> {
        let onSettled = configuration.onSettled
        clock.join()
        return Task {
            defer { clock.leave() }
            guard let (report, attachment) = await fetchImage(url, deadline: deadline, state: state) else { return }
            state.setImage(report, attachment: attachment)
            onSettled?(.image)
            trigger.yield(.imageDone)
        }
    }

    /// What ends the race: expiry, the soft deadline or a kill at once, else the last of the work.
    private func firstEnding(of triggers: AsyncStream<Trigger>, wantsImage: Bool, wantsMetric: Bool) async -> Trigger {
        var imageDone = !wantsImage, metricDone = !wantsMetric
        var ending: Trigger = .metricDone
        for await t in triggers {
            if t == .imageDone { imageDone = true }
            if t == .metricDone { metricDone = true }
            if t == .expiry || t == .kill || t == .softDeadline { ending = t; break }
            if imageDone && metricDone { ending = t; break }
        }
        return ending
    }

    private func logDeadline(_ ending: Trigger, report: inout NSERunReport, state: ExtensionRunState) {
        if ending == .expiry {
            report.expired = true
            state.log("budget expired: serviceExtensionTimeWillExpire cancels the image download and the metric request")
        } else {
            state.log("improved mode: delivering \(configuration.improvedReserve.milliseconds) ms before expiry; unfinished work cancelled")
        }
    }

    /// The race's other runners: budget expiry, improved mode's soft deadline, --kill-at and the kill hook.
    private func startTimers(budgetEnd: Duration, softDeadline: Duration?, killAt: Duration?,
                             trigger: AsyncStream<Trigger>.Continuation) -> [Task<Void, Never>] {
        var tasks: [Task<Void, Never>] = []
        clock.join()
        tasks.append(Task {
            defer { clock.leave() }
            if (try? await clock.sleep(until: budgetEnd)) != nil { trigger.yield(.expiry) }
        })
        if let softDeadline {
            clock.join()
            tasks.append(Task {
                defer { clock.leave() }
                if (try? await clock.sleep(until: softDeadline)) != nil { trigger.yield(.softDeadline) }
            })
        }
        if let killAt {
            clock.join()
            tasks.append(Task {
                defer { clock.leave() }
                if (try? await clock.sleep(until: killAt)) != nil { trigger.yield(.kill) }
            })
        }
        if let killWhen = configuration.killWhen {
            tasks.append(Task {
                await killWhen()
                if !Task.isCancelled { trigger.yield(.kill) }
            })
        }
        return tasks
    }

    /// §2 steps 3/5: the content handler, exactly once: rich if composed, else the original.
    private func callContentHandler(_ report: inout NSERunReport, state: ExtensionRunState, push: CIOPush, aps: APS, payload: JSONValue,
                                    original: DisplayedNotification, wantsImage: Bool, wantsMetric: Bool) {
        let profile = configuration.profile
        let snap = state.snapshot
        report.image = snap.image
        if wantsImage && snap.image.verdict == .none {
            report.image = .dropped(push.image, .cancelled)
        }
        report.metric = snap.metric ?? DeliveredMetricOutcome(url: profile.metricsEndpoint.url(profile.sdkMode == .cioLegacy ? .legacyEvents : .track),
                                                              result: wantsMetric ? .cancelled : .skipped, attempts: snap.metricAttempts)
        report.pendingRow.removed = snap.rowRemoved
        if let attachment = snap.attachment {
            report.notification = displayed(aps: aps, payload: payload, attachments: [attachment])
            report.delivered = .rich
        } else {
            report.notification = original
            report.delivered = .original
        }
        report.contentHandlerCalls = 1
        report.contentDeliveredAtMs = state.elapsed.milliseconds
        state.log("content handler called" + (snap.attachment != nil ? " with the image attached" : " without an image"))
        report.timeline = state.snapshot.timeline
    }

    /// §2 step 1: the pending `delivered` row, written before the metric is sent. Returns its id
    /// when stored.
    private func writePendingRow(_ push: CIOPush, state: ExtensionRunState, report: inout NSERunReport) -> UUID? {
        let row = PendingDeliveryMetric(id: identifiers.uuid(), deliveryID: push.deliveryID, deviceID: push.deliveryToken,
                                        timestamp: wallClock.now)
        var stored = false
        var note: String?
        var droppedOldest: Int?
        state.whileLive {
            do {
                switch try configuration.store.append(row) {
                case .stored(let dropped):
                    stored = true
                    if dropped > 0 {
                        note = "\(dropped) oldest row(s) dropped by the store's cap"
                        droppedOldest = dropped
                    }
                case .duplicate: note = "a row for this delivery id is already pending (deduplicated)"
                case .disabled(let why): note = why
                }
            } catch {
                note = "\(error)"
            }
        }
        report.pendingRow.stored = stored
        report.pendingRow.id = stored ? row.id : nil
        report.pendingRow.note = note
        report.pendingRow.droppedOldest = droppedOldest
        state.log(stored ? "pending delivered row written to the \(configuration.store.kind.rawValue) App Group store"
                         : "no pending row: \(note ?? "store off")")
        return stored ? row.id : nil
    }

    /// Downloads and attaches the image; reports the verdict. nil: the work ended at `deadline`
    /// or later — the SDK's own timeout at the emulated instant it was set for, whenever the
    /// transport's timer fired in real time; anything else when it returned — so the deadline
    /// ends the run first.
    private func fetchImage(_ url: String, deadline: Duration, state: ExtensionRunState) async -> (ImageReport, RichPushAttachment?)? {
        let profile = configuration.profile
        let fetcher = ImageFetcher(transport: transport, allowArbitraryLoads: profile.allowArbitraryLoads,
                                   maxRedirects: configuration.maxRedirects)
        let clock = self.clock
        let timeoutAt = clock.now() + CIONSESession.resourceTimeout
        state.log("image download starts: \(url)")
        let result = await fetcher.fetch(url, remaining: { clock.realDuration(timeoutAt - clock.now()) },
                                         onHop: { hop in if hop != url { state.log("image redirect to \(hop)") } })
        let timedOut = if case .failure(let reason) = result { reason.code == ImageDropReason.timedOut(afterMs: 0).code } else { false }
        guard (timedOut ? timeoutAt : clock.now()) < deadline else { return nil }
        let verdict = imageVerdict(url, result, state: state)
        guard clock.now() < deadline else {
            state.log("image ready only at the deadline or later: too late")
            return nil
        }
        return verdict
    }

    /// The verdict on a finished download: dropped (and why), or attached.
    private func imageVerdict(_ url: String, _ result: Result<ImageDownload, ImageDropReason>,
                              state: ExtensionRunState) -> (ImageReport, RichPushAttachment?) {
        let profile = configuration.profile
        switch result {
        case .failure(let reason):
            let effective = reason.code == ImageDropReason.timedOut(afterMs: 0).code
                ? ImageDropReason.timedOut(afterMs: CIONSESession.resourceTimeout.milliseconds) : reason
            state.log("image dropped: \(effective.reason)")
            return (.dropped(url, effective), nil)
        case .success(let download):
            state.log("image downloaded: HTTP \(download.status), \(download.body.count) bytes")
            let named = AttachmentBuilder.suggestedName(url: download.finalURL, headers: download.headers)
            state.log("image file name \(named.name) (from \(named.source)): iOS takes the attachment's type from its extension")
            let builder = AttachmentBuilder(temporaryDirectory: configuration.temporaryDirectory, identifiers: identifiers,
                                            requireSuccessStatus: profile.sdkMode == .improved)
            switch builder.build(from: download) {
            case .failure(let reason):
                state.log("image dropped: \(reason.reason)")
                var report = ImageReport.dropped(url, reason, chain: download.redirectChain, status: download.status)
                report.bytes = download.body.count
                return (report, nil)
            case .success(let (attachment, warnings)):
                state.log("image attached as \(attachment.identifier) (\(attachment.type.rawValue), \(attachment.size) bytes)")
                for w in warnings { state.log("warning: \(w)") }
                return (ImageReport(url: url, verdict: .attached, warnings: warnings, redirectChain: download.redirectChain,
                                    status: download.status, bytes: download.body.count), attachment)
            }
        }
    }

    private func killedEarly(_ base: NSERunReport, _ state: ExtensionRunState, _ original: DisplayedNotification,
                             imageURL: String? = nil) -> NSERunReport {
        var report = base
        let snap = state.snapshot
        if !snap.killed { state.kill("extension process killed (--kill-at) before it started work") }
        report.killed = true
        report.delivered = .original
        report.notification = original
        report.note = "the extension died before calling the content handler: iOS shows the original content"
        report.image = snap.image
        if let url = imageURL, snap.image.verdict == .none { report.image = .dropped(url, .cancelled) }
        if let metric = snap.metric { report.metric = metric } else if configuration.profile.autoTrackPushEvents && report.handled {
            report.metric = DeliveredMetricOutcome(url: nil, result: .cancelled, attempts: [])
        }
        report.pendingRow.removed = snap.rowRemoved
        report.timeline = state.snapshot.timeline
        return report
    }

    private func displayed(aps: APS?, payload: JSONValue, attachments: [RichPushAttachment]) -> DisplayedNotification {
        DisplayedNotification(title: aps?.alert?.title, subtitle: aps?.alert?.subtitle, body: aps?.alert?.body,
                              sound: aps?.sound?.name, badge: aps?.badge, attachments: attachments,
                              userInfo: EncodableJSON(payload))
    }
}
