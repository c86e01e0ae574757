import Foundation
import PushCore
import PushHTTP

/// Runs the delivered metric the way the profile's SDK mode does (docs/specs/android-side.md
/// §4) through emulated time: the pending store (a real file), the WorkManager job with its
/// network constraint and back-off, the direct fallback, a process death, and the foreground
/// hand-off to the analytics pipeline. Requests are real HTTP requests to the metrics host;
/// time does not pass while they run (each counts `conditions.requestMs`).
public struct AndroidDeliveredMetric: Sendable {
    public var profile: AndroidAppProfile
    public var transport: any HTTPTransport
    public var store: AndroidPendingDeliveryStore?
    public var conditions: AndroidConditions

    public init(profile: AndroidAppProfile, transport: any HTTPTransport, store: AndroidPendingDeliveryStore?, conditions: AndroidConditions) {
        self.profile = profile
        self.transport = transport
        self.store = store
        self.conditions = conditions
    }

    /// The SDK's request for one delivered metric: `POST https://<apiHost>/track` with the
    /// headers in the order `HttpURLConnection` gets them.
    public static func request(profile: AndroidAppProfile, deliveryID: String, deliveryToken: String) -> HTTPRequest {
        var headers = HTTPHeaders()
        headers.add("User-Agent", profile.userAgent)
        headers.add("Authorization", MetricsEndpoint.basic(user: profile.cdpApiKey, password: ""))
        headers.add("Content-Type", AndroidSDKContract.contentType)
        let body = profile.sdkMode == .improved
            ? AndroidSDKContract.improvedMetricBody(deliveryID: deliveryID, deliveryToken: deliveryToken)
            : AndroidSDKContract.metricBody(deliveryID: deliveryID, deliveryToken: deliveryToken)
        return HTTPRequest(method: "POST", url: profile.metricsHost + AndroidSDKContract.trackRoute.path, headers: headers, body: body,
                           timeout: .milliseconds(AndroidSDKContract.requestTimeoutMs))
    }

    /// The app's analytics pipeline (`/v1/b`, batched) the hand-off and taps publish to.
    public static func pipeline(profile: AndroidAppProfile, transport: any HTTPTransport) -> EventPipeline {
        var configuration = EventPipelineConfiguration.cdp(baseURL: profile.metricsHost, writeKey: profile.cdpApiKey)
        configuration.userAgent = profile.userAgent
        return EventPipeline(configuration: configuration, transport: transport)
    }

    /// The SDK's first step on receipt: the entry goes into the pending store (not in
    /// `cio-android-legacy`, which has none). `run(…, entryAppended: true)` continues from there.
    public func appendEntry(deliveryID: String, deliveryToken: String) {
        guard profile.sdkMode != .cioAndroidLegacy, let store else { return }
        store.append(AndroidSDKContract.PendingEntry(deliveryId: deliveryID, token: deliveryToken))
    }

    private enum Attempt { case ok(Int), ioFailure(String, reached: Bool, status: Int?), killedBeforeServer, killedAfterServer(Int?) }

    /// Emulates from the push's arrival (`t = 0`) to the horizon. `tracked` is false when the
    /// duplicate guard or `autoTrackPushEvents` stopped the metric before the SDK stored it;
    /// `entryAppended` is true when `appendEntry` already put it in the pending store (the phone
    /// received it earlier and its metric's timeline runs now).
    public func run(deliveryID: String, deliveryToken: String, tracked: Bool = true, entryAppended: Bool = false,
                    identity: PipelineIdentity = PipelineIdentity(anonymousId: "pushlab-android-anon")) async -> AndroidDeliveredReport {
        guard tracked else {
            return AndroidDeliveredReport(deliveryID: deliveryID, sdkMode: profile.sdkMode,
                                          timeline: [AndroidTimelineEntry(atMs: 0, event: "delivered metric not tracked")], requests: [],
                                          fate: .notTracked, storeEntriesAtEnd: store?.loadAll().count ?? 0, jobStillEnqueued: false, queuedInApp: 0)
        }
        let run = Run(self, deliveryID: deliveryID, deliveryToken: deliveryToken, entryAppended: entryAppended, identity: identity)
        await run.untilHorizon()
        return run.report()
    }

    /// One delivered metric's emulated run: the state the events share, one method per kind of event.
    private final class Run {
        let metric: AndroidDeliveredMetric
        let deliveryID: String
        let identity: PipelineIdentity
        let mode: AndroidSDKMode
        let usesStore: Bool
        let entry: AndroidSDKContract.PendingEntry
        let request: HTTPRequest
        let pipeline: EventPipeline
        var timeline: [AndroidTimelineEntry] = []
        var requests: [AndroidMetricRequest] = []
        var alive = true
        var killPending: Int64?
        var launchPending: Int64?
        /// WorkManager's job: earliest run and attempt count; nil = none enqueued.
        var job: (notBefore: Int64, attempt: Int)? = nil
        var directAt: Int64? = nil
        var pipelineFlushAt: Int64? = nil
        var pipelineQueued = 0
        var now: Int64 = 0

        var conditions: AndroidConditions { metric.conditions }
        var store: AndroidPendingDeliveryStore? { metric.store }

        init(_ metric: AndroidDeliveredMetric, deliveryID: String, deliveryToken: String, entryAppended: Bool, identity: PipelineIdentity) {
            self.metric = metric
            self.deliveryID = deliveryID
            self.identity = identity
            let profile = metric.profile
            mode = profile.sdkMode
            usesStore = mode != .cioAndroidLegacy && metric.store != nil
            entry = AndroidSDKContract.PendingEntry(deliveryId: deliveryID, token: deliveryToken)
            request = AndroidDeliveredMetric.request(profile: profile, deliveryID: deliveryID, deliveryToken: deliveryToken)
            // Built before the first note (a class's init may not call methods earlier); neither reads the store.
            pipeline = AndroidDeliveredMetric.pipeline(profile: profile, transport: metric.transport)
            if usesStore {
                if !entryAppended { metric.store!.append(entry) }
                note(0, "pending entry appended to \(AndroidSDKContract.pendingStoreFileName)")
            }
            killPending = metric.conditions.killAtMs
            launchPending = metric.conditions.launchAtMs
            if profile.workManagerAvailable {
                job = (0, 0)
                note(0, "WorkManager job enqueued (unique work '\(deliveryID)', KEEP, needs NetworkType.CONNECTED)")
            } else {
                directAt = 0
                note(0, "WorkManager unavailable: one direct HTTP attempt on a background coroutine")
            }
        }

        func note(_ t: Int64, _ s: String) { timeline.append(AndroidTimelineEntry(atMs: t, event: s)) }

        /// Runs the next thing that happens until nothing is left before the horizon.
        func untilHorizon() async {
            while true {
                var candidates: [(Int64, Int)] = []  // (time, kind) kind: 0 kill, 1 launch, 2 direct, 3 job, 4 pipeline
                if let k = killPending { candidates.append((k, 0)) }
                if let l = launchPending { candidates.append((l, 1)) }
                if let d = directAt, alive { candidates.append((d, 2)) }
                if let j = job, let at = conditions.nextOnline(from: max(j.notBefore, now)) { candidates.append((at, 3)) }
                if let p = pipelineFlushAt, alive { candidates.append((p, 4)) }
                guard let next = candidates.filter({ $0.0 < conditions.horizonMs }).min(by: { $0.0 < $1.0 || ($0.0 == $1.0 && $0.1 < $1.1) }) else { return }
                now = next.0
                switch next.1 {
                case 0: kill()
                case 1: await launch()
                case 2: await directRequest()
                case 3: await workManagerRun()
                default: await flushPipeline()
                }
            }
        }

        func kill() {
            killPending = nil
            alive = false
            directAt = nil
            note(now, "process killed (in-memory state lost; WorkManager's job survives in its database)")
        }

        /// The app comes to the foreground: the hand-off claims the pending entries for the pipeline.
        func launch() async {
            launchPending = nil
            alive = true
            note(now, "app comes to the foreground (ON_START)")
            guard usesStore, let store else {
                note(now, mode == .cioAndroidLegacy ? "this SDK version has no pending store: nothing to hand off" : "no pending store")
                return
            }
            if job != nil, store.loadAll().contains(where: { $0.deliveryId == deliveryID }) {
                job = nil
                note(now, "hand-off: WorkManager job '\(deliveryID)' cancelled")
            }
            for claimed in await AndroidForegroundHandoff.run(store: store, pipeline: pipeline, mode: mode, identity: identity) {
                pipelineQueued += 1
                note(now, "hand-off: claimed \(claimed.deliveryId), published Delivered on the analytics pipeline")
            }
            if pipelineQueued > 0 { pipelineFlushAt = now + 30_000 }
        }

        func directRequest() async {
            directAt = nil
            note(now, "direct request: POST \(request.url)")
            switch await attempt(at: now, channel: .direct) {
            case .ok(let s):
                if usesStore { store!.remove(deliveryID) }
                note(now + conditions.requestMs, "answer \(s): entry removed")
            case .ioFailure(let why, _, _):
                note(now + conditions.requestMs, "direct request failed (\(why)); no retry" + (usesStore ? ", entry stays for the hand-off" : ": metric lost"))
            case .killedBeforeServer:
                note(now, "killed before the direct request left the phone")
            case .killedAfterServer:
                note(now + conditions.requestMs / 2, "request reached the server; process killed before the answer: entry stays")
            }
        }

        func workManagerRun() async {
            guard var j = job else { return }
            j.attempt += 1
            note(now, "WorkManager runs the job (attempt \(j.attempt))" + (alive ? "" : ", starting the app's process"))
            alive = true
            if mode == .cioAndroid, let store {
                guard store.claim(deliveryID) else {
                    job = nil
                    note(now, "worker: entry already gone (claimed by the hand-off or an interrupted run): success, nothing sent")
                    return
                }
                note(now, "worker: entry claimed (removed from the store) before sending")
            }
            note(now, "worker: POST \(request.url)")
            switch await attempt(at: now, channel: .workManager) {
            case .ok(let s):
                job = nil
                if mode == .improved { store?.remove(deliveryID) }
                note(now + conditions.requestMs, "answer \(s): Result.success()" + (mode == .improved ? ", entry removed after the 2xx" : ""))
            case .ioFailure(let why, _, _):
                if mode == .cioAndroid { store?.append(entry) }
                j.notBefore = now + conditions.requestMs + backoff(j.attempt)
                job = j
                note(now + conditions.requestMs, "worker: \(why) → " + (mode == .cioAndroid ? "entry re-appended, " : "")
                     + "Result.retry() (next run not before t+\(j.notBefore) ms)")
            case .killedBeforeServer:
                job = (now + conditions.requestMs / 2, j.attempt)
                note(now, "process killed mid-run: the request never left; WorkManager will run the job again"
                     + (mode == .cioAndroid ? " (the claimed entry is gone from the store)" : ""))
            case .killedAfterServer:
                job = (now + conditions.requestMs, j.attempt)
                note(now + conditions.requestMs / 2, "request reached the server; process killed before the answer: WorkManager will run the job again")
            }
        }

        func flushPipeline() async {
            pipelineFlushAt = nil
            guard conditions.online(at: now) else {
                pipelineFlushAt = conditions.nextOnline(from: now).map { max($0, now + 30_000) }
                note(now, "pipeline flush skipped: no network; events kept")
                return
            }
            let report = await pipeline.flush()
            for a in report.attempts {
                var status: Int? = nil
                if case .accepted(let s) = a.outcome { status = s }
                if case .rejected(let s) = a.outcome { status = s }
                if case .kept(.status(let s)) = a.outcome { status = s }
                requests.append(AndroidMetricRequest(atMs: now, channel: .pipeline, url: a.request.url, reachedServer: status != nil,
                                                     status: status, error: status == nil ? a.outcome.summary : nil))
                note(now, "pipeline: POST \(a.request.url) → \(a.outcome.summary)")
            }
            pipelineQueued = report.remaining
            if report.remaining > 0 { pipelineFlushAt = now + 30_000 }
        }

        // Sends `request` at `t`, honouring the network and a kill during the request.
        func attempt(at t: Int64, channel: AndroidMetricRequest.Channel) async -> Attempt {
            guard conditions.online(at: t) else {
                let why = conditions.dozing(at: t) ? "Doze: no network for the app" : "network unreachable"
                requests.append(AndroidMetricRequest(atMs: t, channel: channel, url: request.url, reachedServer: false, status: nil, error: why))
                return .ioFailure(why, reached: false, status: nil)
            }
            let half = t + conditions.requestMs / 2
            if let k = killPending, k >= t, k < half {
                killPending = nil
                alive = false
                requests.append(AndroidMetricRequest(atMs: t, channel: channel, url: request.url, reachedServer: false, status: nil,
                                                     error: "process killed before the request left the phone"))
                return .killedBeforeServer
            }
            var status: Int? = nil
            var failure: String? = nil
            do {
                let response = try await metric.transport.send(request)
                status = response.status
                if !(200..<300).contains(response.status) { failure = "HTTP \(response.status)" }
            } catch {
                failure = "\(error)"
            }
            // A failure to connect never reached the server; a status did.
            let reached = status != nil
            if let k = killPending, k >= half, k < t + conditions.requestMs, reached {
                killPending = nil
                alive = false
                requests.append(AndroidMetricRequest(atMs: t, channel: channel, url: request.url, reachedServer: true, status: status,
                                                     error: "process killed before the answer arrived"))
                return .killedAfterServer(status)
            }
            requests.append(AndroidMetricRequest(atMs: t, channel: channel, url: request.url, reachedServer: reached, status: status, error: failure))
            if let failure { return .ioFailure(failure, reached: reached, status: status) }
            return .ok(status ?? 200)
        }

        func backoff(_ n: Int) -> Int64 {
            min(AndroidSDKContract.workManagerInitialBackoffMs << Int64(max(0, n - 1)), AndroidSDKContract.workManagerMaxBackoffMs)
        }

        func report() -> AndroidDeliveredReport {
            let reached = requests.filter { $0.reachedServer && ($0.status.map { (200..<300).contains($0) } ?? false) }.count
            let storeLeft = store?.loadAll().contains { $0.deliveryId == deliveryID } ?? false
            let fate: AndroidMetricFate
            if reached > 1 { fate = .sentMoreThanOnce }
            else if reached == 1 { fate = .sentOnce }
            else if storeLeft || pipelineQueued > 0 || job != nil { fate = .pending }
            else { fate = .lost }
            return AndroidDeliveredReport(deliveryID: deliveryID, sdkMode: mode, timeline: timeline, requests: requests, fate: fate,
                                          storeEntriesAtEnd: store?.loadAll().count ?? 0, jobStillEnqueued: job != nil, queuedInApp: pipelineQueued)
        }
    }
}
