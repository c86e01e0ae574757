import CPushLab
import Glibc

/// Sends one request ("the pilot") on a cold HTTP/2 origin and holds the rest until it has
/// answered, for two reasons found with libcurl 7.88 (Debian 12):
///
/// 1. Stream limits. Until the server's SETTINGS arrive libcurl assumes 100 concurrent streams.
///    A server that allows fewer (APNs and pushlab's emulator start low and raise the limit
///    after the first authenticated request) refuses the excess with REFUSED_STREAM, and
///    libcurl retries those on a *new* connection. After the pilot's response the SETTINGS are
///    known, so the burst queues inside libcurl on the one connection instead.
/// 2. h2c prior knowledge (curl/curl#10634, fixed in 8.0.0): a transfer asking for prior
///    knowledge that *reuses* an h2c connection stacks a second HTTP/2 layer on it and fails
///    with "Error in the HTTP2 framing layer". So only the pilot asks for prior knowledge; the
///    transfers after it ask for plain HTTP/2 (CURL_HTTP_VERSION_2_0), which reuses the
///    connection without switching again.
///
/// Live connections are counted through libcurl's open/close socket callbacks, so when the
/// connection goes away (GOAWAY, idle close) the next request is a pilot again. Loop thread
/// only. Held requests are not yet in libcurl, so their timeout starts when they are released
/// (at most one pilot's timeout later).
final class ConnectionWarmupGate {
    enum Admission {
        /// Start now as the origin's pilot.
        case pilot
        /// Start now: a warm connection exists. `reuseVersion` is the CURLOPT_HTTP_VERSION
        /// that reuses it (nil: the client's own).
        case go(reuseVersion: Int?)
        /// Wait for the pilot.
        case hold
    }

    fileprivate enum Warmth {
        case cold
        case pilotInFlight
        case warm(http2: Bool)
    }

    /// One origin's state. A class, so the loop can keep a reference for the origin it is
    /// sending to and reach it on every request without hashing the origin string again.
    final class Origin {
        let key: String
        /// An `http:` origin (h2c), whose reusing requests may need another HTTP version.
        fileprivate let cleartext: Bool
        fileprivate var liveSockets = 0
        fileprivate var warmth = Warmth.cold
        fileprivate var held: [TransferSubmission] = []

        fileprivate init(key: String) {
            self.key = key
            cleartext = key.hasPrefix("http:")
        }
    }

    private let gatesCleartext: Bool
    private let priorKnowledgeWorkaround: Bool
    /// True when requests must set CURLOPT_HTTP_VERSION each time (pilot vs reuse differ).
    var switchesVersions: Bool { priorKnowledgeWorkaround }
    private var origins: [String: Origin] = [:]
    private var socketOrigins: [Int32: Origin] = [:]
    // One-entry cache: a client usually talks to one origin, often with the same URL string
    // (or with one path per request, as APNs' /3/device/<token>).
    private var lastURL = ""
    private var lastKey: String?
    /// The state of `lastKey`'s origin once looked up (nil until then).
    private var lastOrigin: Origin?
    /// How many leading UTF-8 bytes of `lastURL` are its scheme and authority.
    private var lastOriginLength = 0

    /// Nil when nothing needs gating (HTTP/1.1 mode: no multiplexing).
    init?(mode: HTTPClientConfiguration.ProtocolMode) {
        switch mode {
        case .http1: return nil
        case .http2:
            gatesCleartext = false
            priorKnowledgeWorkaround = false
        case .h2cPriorKnowledge:
            gatesCleartext = true
            priorKnowledgeWorkaround = Self.libcurlHasPriorKnowledgeReuseBug
        }
    }

    static var libcurlHasPriorKnowledgeReuseBug: Bool {
        guard let info = curl_version_info(CURLVERSION_FIRST) else { return true }
        return info.pointee.version_num < 0x08_00_00
    }

    /// "scheme://host:port" for URLs this gate manages (HTTPS always; cleartext only in h2c
    /// mode, where it means HTTP/2), else nil.
    func originKey(_ url: String) -> String? {
        if url == lastURL || Self.sameOrigin(url, lastURL, originLength: lastOriginLength) { return lastKey }
        let key = Self.parseOrigin(url, includeCleartext: gatesCleartext)
        lastURL = url
        if key != lastKey { lastOrigin = nil }
        lastKey = key
        lastOriginLength = key == nil ? 0 : Self.originLength(url)
        return key
    }

    /// True when `url` starts with the first `originLength` bytes of `last` and its authority
    /// ends there (a path, query or fragment follows): the same origin, without parsing.
    private static func sameOrigin(_ url: String, _ last: String, originLength: Int) -> Bool {
        guard originLength > 0 else { return false }
        var url = url, last = last
        return url.withUTF8 { u in
            last.withUTF8 { l in
                guard u.count > originLength, l.count >= originLength,
                      u[originLength] == UInt8(ascii: "/") || u[originLength] == UInt8(ascii: "?") || u[originLength] == UInt8(ascii: "#")
                else { return false }
                return memcmp(u.baseAddress!, l.baseAddress!, originLength) == 0
            }
        }
    }

    /// The UTF-8 length of `url`'s scheme and authority (up to the first "/", "?" or "#" after
    /// "://").
    private static func originLength(_ url: String) -> Int {
        let bytes = Array(url.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon + 3 <= bytes.count else { return 0 }
        let start = colon + 3
        return bytes[start...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.count
    }

    static func parseOrigin(_ url: String, includeCleartext: Bool) -> String? {
        let lower = url.prefix(8).lowercased()
        let schemeLength: Int
        if lower.hasPrefix("https://") { schemeLength = 8 }
        else if includeCleartext && lower.hasPrefix("http://") { schemeLength = 7 }
        else { return nil }
        let rest = url.dropFirst(schemeLength)
        let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        return lower.prefix(schemeLength) + rest[..<end].lowercased()
    }

    /// The state of `url`'s origin, created on first use; nil for URLs the gate does not manage.
    func origin(for url: String) -> Origin? {
        guard let key = originKey(url) else { return nil }
        if let lastOrigin { return lastOrigin }
        let origin = state(key)
        lastOrigin = origin
        return origin
    }

    private func state(_ key: String) -> Origin {
        if let origin = origins[key] { return origin }
        let origin = Origin(key: key)
        origins[key] = origin
        return origin
    }

    func admit(_ origin: Origin) -> Admission {
        switch origin.warmth {
        case .warm(let http2) where origin.liveSockets > 0:
            let reuse = priorKnowledgeWorkaround && http2 && origin.cleartext
            return .go(reuseVersion: reuse ? CURL_HTTP_VERSION_2_0 : nil)
        case .pilotInFlight:
            return .hold
        case .warm, .cold:
            origin.warmth = .pilotInFlight
            return .pilot
        }
    }

    func hold(_ submission: TransferSubmission, origin: Origin) {
        origin.held.append(submission)
    }

    /// The pilot finished. Returns the held requests, to be admitted again (now going ahead
    /// on the warm connection, or electing a new pilot).
    func pilotFinished(origin: Origin, version: HTTPVersion?) -> [TransferSubmission] {
        if let version, origin.liveSockets > 0 {
            origin.warmth = .warm(http2: version == .http2)
        } else {
            origin.warmth = .cold
        }
        let released = origin.held
        origin.held = []
        return released
    }

    /// Removes a held request (cancelled) so the caller can fail it.
    func removeHeld(id: UInt64) -> TransferSubmission? {
        for origin in origins.values {
            if let index = origin.held.firstIndex(where: { $0.id == id }) { return origin.held.remove(at: index) }
        }
        return nil
    }

    func removeAllHeld() -> [TransferSubmission] {
        var all: [TransferSubmission] = []
        for origin in origins.values where !origin.held.isEmpty {
            all += origin.held
            origin.held = []
        }
        return all
    }

    /// The sockets of the connections it counts: every HTTP/2 connection of the client.
    var openSockets: Dictionary<Int32, Origin>.Keys { socketOrigins.keys }

    fileprivate func opened(_ socket: Int32, url: String) {
        guard let origin = origin(for: url) else { return }
        socketOrigins[socket] = origin
        origin.liveSockets += 1
    }

    /// A request meant to reuse the origin's connection found none: the origin is cold again.
    fileprivate func cooled(url: String) {
        guard let origin = origin(for: url), case .warm = origin.warmth else { return }
        origin.warmth = .cold
    }

    fileprivate func closed(_ socket: Int32) {
        guard let origin = socketOrigins.removeValue(forKey: socket) else { return }
        origin.liveSockets -= 1
        if origin.liveSockets <= 0, case .warm = origin.warmth {
            origin.warmth = .cold
        }
    }

    /// Installs the socket callbacks on an easy handle. The transfer is the open callback's
    /// context (it knows which URL is connecting); the gate is the close callback's, because
    /// libcurl copies that pointer into the connection, which may outlive the transfer.
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
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
    if transfer.mustReuseConnection {
        // It asked for plain HTTP/2 to reuse an h2c connection that turned out dead (say, after
        // a GOAWAY libcurl only read now). On a new connection that would mean an HTTP/1.1
        // Upgrade, not prior knowledge: refuse, and the loop starts it again as a pilot.
        transfer.refusedNewConnection = true
        if let url = transfer.submission?.request.url { transfer.gate?.cooled(url: url) }
        return CURL_SOCKET_BAD
    }
    let fd = socket(address.pointee.family, address.pointee.socktype, address.pointee.protocol)
    guard fd >= 0 else { return CURL_SOCKET_BAD }
    if let gate = transfer.gate, let url = transfer.submission?.request.url { gate.opened(fd, url: url) }
    return fd
}

private func gateCloseSocket(_ context: UnsafeMutableRawPointer?, _ socket: curl_socket_t) -> Int32 {
    Unmanaged<ConnectionWarmupGate>.fromOpaque(context!).takeUnretainedValue().closed(socket)
    return close(socket)
}
