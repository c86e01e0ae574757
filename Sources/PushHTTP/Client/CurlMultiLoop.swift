import CPushLab

/// The client's event loop: owns one libcurl multi handle, every easy handle and the thread
/// that drives them. Created by `HTTPClient.init`, then handed to the thread, after which only
/// that thread touches it (the multi handle, the pool, the active set, the warm-up gate, the
/// libcurl callbacks). Other threads reach it solely through `ClientInbox` (a mutex-protected
/// queue plus `curl_multi_wakeup`).
final class CurlMultiLoop {
    private let multi: UnsafeMutableRawPointer
    private let inbox: ClientInbox
    private let settings: CurlSettings
    /// Finished handles kept for reuse: their buffers and TLS session cache survive.
    private var idle: [CurlTransfer] = []
    private let idleLimit: Int
    /// Transfers added to the multi handle. An array, each transfer knowing its index, because
    /// adding and removing happen for every request while a lookup by request id happens only
    /// for a cancellation (a scan then); a dictionary would hash the id twice per request
    /// (benchmarks/results/design-measurements.md).
    private var active: [CurlTransfer] = []
    /// Nil in HTTP/1.1 mode (nothing to multiplex, nothing to warm up).
    private let gate: ConnectionWarmupGate?
    // Buffers reused every turn: drained from the inbox, and finished exchanges whose callers
    // are resumed together after the stats are recorded.
    private var incoming: [TransferSubmission] = []
    private var cancelled: [UInt64] = []
    private var remoteJobs: [UnownedJob] = []
    private var finished: [(TransferSubmission, Result<HTTPResponse, HTTPClientError>)] = []
    /// Transfers handed to libcurl since the last curl_multi_perform.
    private var startedSincePerform = 0
    /// The sockets corked for the current curl_multi_perform (see `performCorked`).
    private var corked: [Int32] = []

    /// Fails only when libcurl cannot allocate a multi handle.
    init?(configuration: HTTPClientConfiguration) {
        CurlLibrary.initializeOnce()
        guard let multi = curl_multi_init() else { return nil }
        self.multi = multi
        settings = CurlSettings(configuration)
        idleLimit = max(64, min(configuration.maxConcurrentStreams, 1024))
        gate = ConnectionWarmupGate(mode: configuration.protocolMode)
        // Multiplex HTTP/2 streams; cap streams and connections per host as configured.
        cpl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        cpl_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, max(configuration.maxConcurrentStreams, 1))
        cpl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(configuration.maxConnectionsPerHost, 1))
        inbox = ClientInbox(wakeHandle: MultiWakeHandle(multi: multi))
        executor = ClientLoopExecutor(inbox: inbox)
    }

    var sharedInbox: ClientInbox { inbox }
    /// Runs tasks that prefer it on this loop's thread (see `ClientLoopExecutor`).
    let executor: ClientLoopExecutor

    /// The thread body. Returns when a stop was requested and nothing is in flight.
    func run() {
        executor.attach()
        var resumedCallers = false
        while true {
            // Tasks running on the loop first: what they send is drained just below.
            var stop = inbox.drain(submissions: &incoming, cancellations: &cancelled, jobs: &remoteJobs)
            if executor.runJobs(&remoteJobs) > 0 {
                stop = inbox.drain(submissions: &incoming, cancellations: &cancelled, jobs: &remoteJobs)
            }
            for submission in incoming { start(submission) }
            incoming.removeAll(keepingCapacity: true)
            for id in cancelled { abort(id: id, with: .cancelled) }
            cancelled.removeAll(keepingCapacity: true)
            if stop == .abortInFlight { abortEverything() }
            if stop != nil && active.isEmpty && !executor.hasLocalJobs && remoteJobs.isEmpty { break }

            performCorked()
            if collectFinished() > 0 {  // freed streams: take new work first
                // Callers on other threads were resumed: give them the CPU once (below).
                // Callers on this loop run at the top of the next turn.
                resumedCallers = !executor.hasLocalJobs
                continue
            }
            if resumedCallers {
                // The callers just resumed usually send their next requests within
                // microseconds: give them the CPU once and pick those up without a wakeup
                // (a syscall and a context switch per batch).
                resumedCallers = false
                sched_yield()
                continue
            }
            if executor.hasLocalJobs || !remoteJobs.isEmpty { continue }
            // Sleeps until a socket is ready, a libcurl timer fires or another thread calls
            // curl_multi_wakeup; the 1 s cap is only a safety net.
            if inbox.mayPoll() { curl_multi_poll(multi, nil, 0, 1000, nil) }
        }
        tearDown()
    }

    /// Runs curl_multi_perform, with the client's HTTP/2 connections corked (TCP_CORK) while it
    /// runs when it is about to send several requests. libcurl writes each frame as its own TLS
    /// record at once, and sends an HTTP/2 request's body apart from its headers, so with
    /// TCP_NODELAY every request is two packets; corked, the frames written in one call leave
    /// together in full segments when it returns — fewer packets for both ends, the same bytes
    /// (benchmarks/results/client-profile.md). Nothing is held back once the call returns.
    /// A single request is sent as before: corking costs two system calls per connection.
    private func performCorked() {
        if startedSincePerform >= 2, let gate {
            for socket in gate.openSockets where cpl_tcp_cork(socket, 1) == 0 { corked.append(socket) }
        }
        startedSincePerform = 0
        var running: Int32 = 0
        curl_multi_perform(multi, &running)
        guard !corked.isEmpty else { return }
        inbox.corkedTurns.add(1, ordering: .relaxed)
        // A socket libcurl closed during the call is no longer in the gate's set: only live
        // ones are uncorked (an fd number reused meanwhile is not ours to touch).
        if let gate {
            let open = gate.openSockets
            for socket in corked where open.contains(socket) { _ = cpl_tcp_cork(socket, 0) }
        }
        corked.removeAll(keepingCapacity: true)
    }

    // MARK: starting

    private func start(_ submission: TransferSubmission) {
        var httpVersion: Int?
        var pilotOrigin: ConnectionWarmupGate.Origin?
        var mustReuse = false
        if let gate, let origin = gate.origin(for: submission.request.url) {
            switch gate.admit(origin) {
            case .hold:
                gate.hold(submission, origin: origin)
                return
            case .pilot:
                pilotOrigin = origin
                if gate.switchesVersions { httpVersion = settings.httpVersion }
            case .go(let reuseVersion):
                if gate.switchesVersions { httpVersion = reuseVersion ?? settings.httpVersion }
                mustReuse = reuseVersion != nil
            }
        } else if let gate, gate.switchesVersions {
            httpVersion = settings.httpVersion
        }
        guard let transfer = idle.popLast() ?? makeTransfer() else {
            refuse(submission, pilotOrigin: pilotOrigin, .protocolError("libcurl could not allocate a handle"))
            return
        }
        transfer.pilotOrigin = pilotOrigin
        transfer.mustReuseConnection = mustReuse
        if let problem = transfer.prepare(submission, httpVersion: httpVersion) {
            recycle(transfer)
            refuse(submission, pilotOrigin: pilotOrigin, problem)
            return
        }
        let added = curl_multi_add_handle(multi, transfer.easy)
        guard added == CURLM_OK else {
            recycle(transfer)
            refuse(submission, pilotOrigin: pilotOrigin,
                   .protocolError("libcurl refused the transfer: \(String(cString: curl_multi_strerror(added)))"))
            return
        }
        transfer.activeIndex = active.count
        active.append(transfer)
        startedSincePerform += 1
    }

    /// Takes `transfer` out of `active` (the last one moves into its place).
    private func deactivate(_ transfer: CurlTransfer) {
        let index = transfer.activeIndex
        guard index >= 0 else { return }
        let last = active.removeLast()
        if last !== transfer {
            active[index] = last
            last.activeIndex = index
        }
        transfer.activeIndex = -1
    }

    private func makeTransfer() -> CurlTransfer? {
        guard let transfer = CurlTransfer(settings: settings) else { return nil }
        if let gate {
            transfer.gate = gate
            gate.install(on: transfer)
        }
        return transfer
    }

    /// Fails a request that never reached libcurl.
    private func refuse(_ submission: TransferSubmission, pilotOrigin: ConnectionWarmupGate.Origin?, _ error: HTTPClientError) {
        inbox.record(completed: 0, failed: 1, connectionsOpened: 0)
        submission.continuation.resume(throwing: error)
        pilotLanded(pilotOrigin, version: nil)
    }

    /// A pilot is done: admit the requests that waited for it.
    private func pilotLanded(_ origin: ConnectionWarmupGate.Origin?, version: HTTPVersion?) {
        guard let origin, let gate else { return }
        for submission in gate.pilotFinished(origin: origin, version: version) { start(submission) }
    }

    // MARK: finishing

    /// Hands every finished transfer's outcome to its caller: stats first (so a caller that
    /// reads them after its response sees its own exchange counted), then the continuations.
    /// Returns how many finished.
    private func collectFinished() -> Int {
        var easy: UnsafeMutableRawPointer?
        var code = CURLE_OK
        var completed = 0, failed = 0, connections = 0
        var pilots: [(ConnectionWarmupGate.Origin, HTTPVersion?)] = []
        var restarts: [TransferSubmission] = []
        while cpl_multi_next_done(multi, &easy, &code) != 0, let handle = easy {
            let transfer = CurlTransfer.from(easy: handle)
            guard let submission = transfer.submission else { continue }
            if transfer.refusedNewConnection {
                // Its connection was gone; it never went out. Start it again (as a pilot).
                curl_multi_remove_handle(multi, handle)
                deactivate(transfer)
                _ = transfer.finish(code, settings: settings)
                recycle(transfer)
                restarts.append(submission)
                continue
            }
            let outcome = transfer.finish(code, settings: settings)
            connections += transfer.connectionsOpened
            curl_multi_remove_handle(multi, handle)
            deactivate(transfer)
            if let origin = transfer.pilotOrigin {
                pilots.append((origin, try? outcome.get().version))
            }
            recycle(transfer)
            if case .success = outcome { completed += 1 } else { failed += 1 }
            finished.append((submission, outcome))
        }
        for submission in restarts { start(submission) }
        let count = finished.count + restarts.count
        guard !finished.isEmpty else { return count }
        inbox.record(completed: completed, failed: failed, connectionsOpened: connections)
        for (submission, outcome) in finished {
            switch outcome {
            case .success(let response): submission.continuation.resume(returning: response)
            case .failure(let error): submission.continuation.resume(throwing: error)
            }
        }
        finished.removeAll(keepingCapacity: true)
        for (origin, version) in pilots { pilotLanded(origin, version: version) }
        return count
    }

    /// Removes a transfer from libcurl mid-flight (HTTP/2: the stream is reset, the connection
    /// stays). Unknown ids already finished: nothing to do.
    private func abort(id: UInt64, with error: HTTPClientError) {
        guard let transfer = active.first(where: { $0.submission?.id == id }), let submission = transfer.submission else {
            if let held = gate?.removeHeld(id: id) { refuse(held, pilotOrigin: nil, error) }
            return
        }
        deactivate(transfer)
        let connections = transfer.connectionsOpened
        curl_multi_remove_handle(multi, transfer.easy)
        _ = transfer.finish(CURLE_ABORTED_BY_CALLBACK, settings: settings)
        let pilotOrigin = transfer.pilotOrigin
        recycle(transfer)
        inbox.record(completed: 0, failed: 1, connectionsOpened: connections)
        submission.continuation.resume(throwing: error)
        pilotLanded(pilotOrigin, version: nil)
    }

    private func abortEverything() {
        for held in gate?.removeAllHeld() ?? [] { refuse(held, pilotOrigin: nil, .shutDown) }
        for id in active.compactMap({ $0.submission?.id }) { abort(id: id, with: .shutDown) }
    }

    private func recycle(_ transfer: CurlTransfer) {
        transfer.clear()
        if idle.count < idleLimit { idle.append(transfer) }
    }

    private func tearDown() {
        // Callers resumed from here on run on the global executor: this thread is leaving.
        executor.detach()
        abortEverything()
        let (late, jobs, waiters) = inbox.markFinished()
        executor.forward(jobs)
        for submission in late { submission.continuation.resume(throwing: HTTPClientError.shutDown) }
        // libcurl: remove every easy handle (done above), clean up the multi handle (closing
        // its connections, which calls the gate's close-socket callback), then the easy handles.
        curl_multi_cleanup(multi)
        idle.removeAll()
        for waiter in waiters { waiter.resume() }
    }
}
