import CPushLab
import Glibc

/// Works around a libcurl 7.88 bug (curl/curl#10634, fixed in 8.0.0 by #10643): a transfer
/// asking for HTTP/2 prior knowledge that *reuses* an h2c connection stacks a second HTTP/2
/// layer on it and fails with "Error in the HTTP2 framing layer". Debian 12 ships 7.88.1.
///
/// So on such a libcurl only one transfer per origin asks for prior knowledge (the pilot); the
/// rest wait here until it has an HTTP/2 connection up, then ask for plain HTTP/2
/// (CURL_HTTP_VERSION_2_0), which reuses that connection without re-switching. Live
/// connections are counted through libcurl's open/close socket callbacks, so when the
/// connection goes away the next transfer becomes a pilot again.
///
/// Loop thread only. Held transfers are not yet in libcurl, so their timeout clock starts when
/// they are released (at most one pilot's timeout later).
final class PriorKnowledgeGate {
    enum Admission {
        /// Start now asking for prior knowledge (it will open the connection).
        case pilot
        /// Start now asking for HTTP/2: an h2c connection to the origin is up.
        case reuse
        /// Wait for the pilot.
        case hold
    }

    private struct Origin {
        var liveSockets = 0
        var confirmed = false
        var pilotInFlight = false
        var held: [TransferSubmission] = []
    }

    private var origins: [String: Origin] = [:]
    private var socketOrigins: [Int32: String] = [:]

    /// Whether this libcurl has the bug.
    static var isNeeded: Bool {
        guard let info = curl_version_info(CURLVERSION_FIRST) else { return true }
        return info.pointee.version_num < 0x08_00_00
    }

    /// "http://host:port" of a cleartext URL, or nil (TLS URLs negotiate h2 by ALPN).
    static func originKey(_ url: String) -> String? {
        let utf8 = url.utf8
        guard utf8.count > 7, url.prefix(7).lowercased() == "http://" else { return nil }
        let rest = url.dropFirst(7)
        let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        return "http://" + rest[..<end].lowercased()
    }

    func admit(_ origin: String) -> Admission {
        var state = origins[origin, default: Origin()]
        defer { origins[origin] = state }
        if state.confirmed && state.liveSockets > 0 { return .reuse }
        if state.pilotInFlight { return .hold }
        state.pilotInFlight = true
        return .pilot
    }

    func hold(_ submission: TransferSubmission, origin: String) {
        origins[origin, default: Origin()].held.append(submission)
    }

    /// The pilot finished; returns the transfers to start again (now as reuse or a new pilot).
    func pilotFinished(origin: String, gotHTTP2: Bool) -> [TransferSubmission] {
        guard var state = origins[origin] else { return [] }
        state.pilotInFlight = false
        if gotHTTP2 && state.liveSockets > 0 { state.confirmed = true }
        let released = state.held
        state.held = []
        origins[origin] = state
        return released
    }

    /// Removes a held transfer (cancelled or shut down) so the caller can fail it.
    func removeHeld(id: UInt64) -> TransferSubmission? {
        for (key, state) in origins {
            if let index = state.held.firstIndex(where: { $0.id == id }) {
                return origins[key]!.held.remove(at: index)
            }
        }
        return nil
    }

    func removeAllHeld() -> [TransferSubmission] {
        var all: [TransferSubmission] = []
        for key in origins.keys {
            all += origins[key]!.held
            origins[key]!.held = []
        }
        return all
    }

    // Socket bookkeeping, from the callbacks below.
    fileprivate func opened(_ socket: Int32, origin: String) {
        socketOrigins[socket] = origin
        origins[origin, default: Origin()].liveSockets += 1
    }

    fileprivate func closed(_ socket: Int32) {
        guard let origin = socketOrigins.removeValue(forKey: socket) else { return }
        origins[origin, default: Origin()].liveSockets -= 1
        if origins[origin]!.liveSockets <= 0 { origins[origin]!.confirmed = false }
    }

    /// Installs the socket callbacks on an easy handle. `transfer` is the open callback's
    /// context (it knows the origin being connected); the gate is the close callback's (libcurl
    /// copies it into the connection, which may outlive the transfer that opened it).
    func install(on transfer: CurlTransfer) {
        cpl_easy_setopt_opensocket_callback(transfer.easy, gateOpenSocket)
        cpl_easy_setopt_pointer(transfer.easy, CURLOPT_OPENSOCKETDATA, Unmanaged.passUnretained(transfer).toOpaque())
        cpl_easy_setopt_closesocket_callback(transfer.easy, gateCloseSocket)
        cpl_easy_setopt_pointer(transfer.easy, CURLOPT_CLOSESOCKETDATA, Unmanaged.passUnretained(self).toOpaque())
    }
}

private func gateOpenSocket(_ context: UnsafeMutableRawPointer?, _ purpose: curlsocktype,
                            _ address: UnsafeMutablePointer<curl_sockaddr>?) -> curl_socket_t {
    guard let address else { return CURL_SOCKET_BAD }
    let fd = socket(address.pointee.family, address.pointee.socktype, address.pointee.protocol)
    guard fd >= 0 else { return CURL_SOCKET_BAD }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
    if let gate = transfer.gate, let url = transfer.submission?.request.url, let origin = PriorKnowledgeGate.originKey(url) {
        gate.opened(fd, origin: origin)
    }
    return fd
}

private func gateCloseSocket(_ context: UnsafeMutableRawPointer?, _ socket: curl_socket_t) -> Int32 {
    Unmanaged<PriorKnowledgeGate>.fromOpaque(context!).takeUnretainedValue().closed(socket)
    return close(socket)
}
