import CPushLab

/// One libcurl easy handle and the buffers of the exchange it is carrying. Pooled and reused
/// by `CurlMultiLoop`; lives on the loop thread only (libcurl calls the callbacks below from
/// inside `curl_multi_perform` on that thread).
final class CurlTransfer {
    let easy: UnsafeMutableRawPointer
    /// libcurl writes its detailed error text here (CURLOPT_ERRORBUFFER).
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// The request body, copied here so its address is stable while libcurl sends it.
    private var upload: UnsafeMutableRawPointer?
    private var uploadCapacity = 0
    private var headerList: UnsafeMutablePointer<curl_slist>?
    // What `headerList` and CURLOPT_URL were built from, to reuse them for an identical request.
    private var listHeaders = HTTPHeaders()
    private var listSendsBody = false
    private var listStopsExpect = false
    private var lastURL: String?

    /// The client's warm-up gate, for the socket callbacks (see `ConnectionWarmupGate`).
    var gate: ConnectionWarmupGate?
    /// The origin this transfer is the warm-up pilot for, if it is one.
    var pilotOrigin: ConnectionWarmupGate.Origin?
    /// Its place in the loop's active set, -1 when not in libcurl.
    var activeIndex = -1
    /// Set for h2c requests that ask for plain HTTP/2 to reuse a connection: they must not
    /// open one (see `ConnectionWarmupGate`).
    var mustReuseConnection = false
    /// Set by the open-socket callback when it refused a new connection for such a request.
    var refusedNewConnection = false

    // The exchange in progress.
    private(set) var submission: TransferSubmission?
    private var responseHeaders: [HTTPHeader] = []
    private var body: [UInt8] = []
    private var bodyLimit = Int.max
    private var exceededLimit = false

    /// Creates the handle with the options every exchange shares.
    init?(settings: CurlSettings) {
        guard let easy = curl_easy_init() else { return nil }
        self.easy = easy
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let me = Unmanaged.passUnretained(self).toOpaque()
        cpl_easy_setopt_pointer(easy, CURLOPT_PRIVATE, me)
        cpl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, me)
        cpl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, me)
        cpl_easy_setopt_write_callback(easy, curlWriteBody)
        cpl_easy_setopt_header_callback(easy, curlWriteHeader)
        cpl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer)
        settings.apply(to: easy)
    }

    deinit {
        curl_easy_cleanup(easy)
        if let headerList { curl_slist_free_all(headerList) }
        upload?.deallocate()
        errorBuffer.deallocate()
    }

    static func from(easy: UnsafeMutableRawPointer) -> CurlTransfer {
        var pointer: UnsafeMutableRawPointer?
        cpl_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &pointer)
        return Unmanaged<CurlTransfer>.fromOpaque(pointer!).takeUnretainedValue()
    }

    /// Sets the per-exchange options. Every option a previous exchange may have set is set
    /// again here, so a reused handle carries nothing over.
    /// `httpVersion` overrides the client's CURLOPT_HTTP_VERSION for this exchange.
    func prepare(_ submission: TransferSubmission, httpVersion: Int?) -> HTTPClientError? {
        self.submission = submission
        if let httpVersion { cpl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, httpVersion) }
        let request = submission.request
        bodyLimit = request.maxResponseBodyBytes ?? Int.max
        exceededLimit = false
        errorBuffer[0] = 0

        // A pooled handle usually carries the same URL and headers as last time (a bulk send):
        // then libcurl already has them and the header list can be reused as it is.
        if request.url != lastURL {
            guard request.url.withCString({ cpl_easy_setopt_string(easy, CURLOPT_URL, $0) }) == CURLE_OK else {
                lastURL = nil
                return .invalidURL(request.url)
            }
            lastURL = request.url
        }
        cpl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, max(submission.timeout.roundedUpMilliseconds, 1))

        let method = HTTPMethodKind(request.method)
        let sendsBody = method != .head && !(request.body.isEmpty && !method.expectsBody)
        cpl_easy_setopt_long(easy, CURLOPT_NOBODY, 0)
        if method == .head {
            cpl_easy_setopt_long(easy, CURLOPT_NOBODY, 1)
            cpl_easy_setopt_pointer(easy, CURLOPT_CUSTOMREQUEST, nil)
        } else if !sendsBody {
            cpl_easy_setopt_long(easy, CURLOPT_HTTPGET, 1)
            setCustomMethod(method == .get ? nil : request.method)
        } else {
            copyBody(request.body)
            cpl_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count))
            cpl_easy_setopt_pointer(easy, CURLOPT_POSTFIELDS, upload)
            setCustomMethod(method == .post ? nil : request.method)
        }
        let stopsExpect = sendsBody && request.body.count >= Self.expectContinueThreshold
        if headerList == nil || sendsBody != listSendsBody || stopsExpect != listStopsExpect
            || !reuseHeaderList(for: request.headers) {
            setHeaderList(request.headers, sendsBody: sendsBody, stopsExpect: stopsExpect)
        }
        return nil
    }

    /// Makes `headerList` carry `headers` without building a new list when they have the same
    /// names in the same order as last time: only the nodes whose value changed get new text.
    /// A bulk send changes one value per push (APNs' apns-id), so this replaces one line
    /// instead of allocating every node again (benchmarks/results/design-measurements.md).
    /// False when the list must be rebuilt (`setHeaderList` then replaces it whole, so lines
    /// already replaced here on the way do no harm). One pass: the fields a bulk send shares
    /// are the same strings every time, which compare without reading their bytes.
    private func reuseHeaderList(for headers: HTTPHeaders) -> Bool {
        guard headers.count == listHeaders.count else { return false }
        var node = headerList
        for (new, old) in zip(headers.fields, listHeaders.fields) {
            guard new.name == old.name else { return false }
            if new.name.isEmpty { continue }  // not in the list (setHeaderList skips it)
            guard let current = node else { return false }
            if new.value != old.value {
                var name = new.name, value = new.value
                let replaced = name.withUTF8 { n in
                    value.withUTF8 { v in
                        n.withMemoryRebound(to: CChar.self) { n in
                            v.withMemoryRebound(to: CChar.self) { v in
                                cpl_slist_replace_header(current, n.baseAddress, n.count, v.baseAddress, v.count)
                            }
                        }
                    }
                }
                guard replaced != 0 else { return false }
            }
            node = current.pointee.next
        }
        listHeaders = headers
        return true
    }

    /// The smallest body for which libcurl adds `Expect: 100-continue` on HTTP/1.1 (1024 bytes
    /// in older releases, 1 MiB in newer ones: the lower bound is safe for both). Below it the
    /// "Expect:" line that stops it is left out: every line of the list costs libcurl a
    /// case-insensitive compare for each of the ~30 header names it looks up per request
    /// (about 32 `curl_strnequal` calls per line per request, counted with `perf probe`).
    static let expectContinueThreshold = 1024

    private func setHeaderList(_ headers: HTTPHeaders, sendsBody: Bool, stopsExpect: Bool) {
        var list: UnsafeMutablePointer<curl_slist>?
        var sawContentType = false
        for field in headers where !field.name.isEmpty {
            if !sawContentType, field.name.utf8.count == 12, field.name.lowercased() == "content-type" { sawContentType = true }
            list = appendHeader(list, field.name, field.value)
        }
        if sendsBody {
            // libcurl would add a form content type and, on HTTP/1.1, `Expect: 100-continue`
            // (a round trip of waiting); the caller's headers are what should go out.
            if !sawContentType { list = appendHeader(list, "Content-Type", "", remove: true) }
            if stopsExpect { list = appendHeader(list, "Expect", "", remove: true) }
        }
        // Never NULL, so a request without headers still counts as "list set" for the cache.
        if list == nil { list = appendHeader(list, "Expect", "", remove: true) }
        cpl_easy_setopt_pointer(easy, CURLOPT_HTTPHEADER, list)
        if let headerList { curl_slist_free_all(headerList) }
        headerList = list
        listHeaders = headers
        listSendsBody = sendsBody
        listStopsExpect = stopsExpect
    }

    private func setCustomMethod(_ method: String?) {
        if let method {
            method.uppercased().withCString { _ = cpl_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, $0) }
        } else {
            cpl_easy_setopt_pointer(easy, CURLOPT_CUSTOMREQUEST, nil)
        }
    }

    /// Appends "name: value"; `remove` appends "name:" instead, which stops libcurl from
    /// sending its own header of that name.
    private func appendHeader(_ list: UnsafeMutablePointer<curl_slist>?, _ name: String, _ value: String,
                              remove: Bool = false) -> UnsafeMutablePointer<curl_slist>? {
        var name = name, value = value
        let appended: UnsafeMutablePointer<curl_slist>? = name.withUTF8 { n in
            let namePointer = UnsafeRawPointer(n.baseAddress!).assumingMemoryBound(to: CChar.self)
            if remove { return cpl_slist_append_header(list, namePointer, n.count, nil, 0) }
            return value.withUTF8 { v in
                guard let base = v.baseAddress, v.count > 0 else {
                    return cpl_slist_append_header(list, namePointer, n.count, "", 0)
                }
                return cpl_slist_append_header(list, namePointer, n.count,
                                               UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), v.count)
            }
        }
        return appended ?? list
    }

    private func copyBody(_ bytes: [UInt8]) {
        if uploadCapacity < max(bytes.count, 1) {
            upload?.deallocate()
            uploadCapacity = max(bytes.count, 64)
            upload = .allocate(byteCount: uploadCapacity, alignment: 16)
        }
        bytes.withUnsafeBytes { src in
            if let base = src.baseAddress { upload!.copyMemory(from: base, byteCount: src.count) }
        }
    }

    // MARK: callbacks (inside curl_multi_perform, loop thread)

    fileprivate func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if body.count + bytes.count > bodyLimit {
            exceededLimit = true
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    fileprivate func receiveHeaderLine(_ line: UnsafeRawBufferPointer) -> Bool {
        var end = line.count
        while end > 0, line[end - 1] == 0x0A || line[end - 1] == 0x0D { end -= 1 }
        if end == 0 { return true }  // the blank line ending a header block
        if end >= 5, line[0] == 0x48, line[1] == 0x54, line[2] == 0x54, line[3] == 0x50, line[4] == 0x2F {
            // "HTTP/…" starts a new header block (after a 1xx, the final one replaces it).
            responseHeaders.removeAll(keepingCapacity: true)
            return true
        }
        guard let colon = line[..<end].firstIndex(of: 0x3A) else { return true }
        var valueStart = colon + 1
        while valueStart < end, line[valueStart] == 0x20 || line[valueStart] == 0x09 { valueStart += 1 }
        let name = String(decoding: UnsafeRawBufferPointer(rebasing: line[..<colon]), as: UTF8.self)
        let value = String(decoding: UnsafeRawBufferPointer(rebasing: line[valueStart..<end]), as: UTF8.self)
        if colon == 14, name.lowercased() == "content-length", let length = Int(value) {
            // Refuse a body we already know is too big before any of it arrives.
            if length > bodyLimit {
                exceededLimit = true
                return false
            }
            body.reserveCapacity(length)
        }
        responseHeaders.append(HTTPHeader(name, value))
        return true
    }

    // MARK: completion

    /// The outcome of the finished exchange. Consumes the buffers, leaving the handle ready
    /// for `prepare`.
    func finish(_ code: CURLcode, settings: CurlSettings) -> Result<HTTPResponse, HTTPClientError> {
        defer {
            responseHeaders.removeAll(keepingCapacity: true)
            body = []
        }
        if code != CURLE_OK {
            return .failure(CurlErrorMapping.error(for: code, url: submission?.request.url ?? "", detail: String(cString: errorBuffer),
                                                   exceededLimit: exceededLimit, limit: bodyLimit,
                                                   timeout: submission?.timeout ?? .zero, caFile: settings.caFile))
        }
        var status = 0
        var version = 0
        cpl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        cpl_easy_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version)
        let response = HTTPResponse(status: status, headers: HTTPHeaders(responseHeaders), body: body,
                                    version: version == CURL_HTTP_VERSION_2_0 ? .http2 : .http1_1,
                                    timings: timings(), effectiveURL: submission?.request.url)
        return .success(response)
    }

    /// New connections this exchange had to open (0 when it reused one).
    var connectionsOpened: Int {
        var count = 0
        cpl_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &count)
        return count
    }

    private func timings() -> HTTPTimings {
        func micros(_ info: CURLINFO) -> Int64 {
            var value: curl_off_t = 0
            cpl_easy_getinfo_off_t(easy, info, &value)
            return Int64(value)
        }
        let connect = micros(CURLINFO_CONNECT_TIME_T)
        let tls = micros(CURLINFO_APPCONNECT_TIME_T)
        return HTTPTimings(connect: .microseconds(connect),
                           tlsHandshake: .microseconds(tls > connect ? tls - connect : 0),
                           firstByte: .microseconds(micros(CURLINFO_STARTTRANSFER_TIME_T)),
                           total: .microseconds(micros(CURLINFO_TOTAL_TIME_T)))
    }

    /// Forgets the finished exchange (its continuation has been resumed).
    func clear() {
        submission = nil
        pilotOrigin = nil
        mustReuseConnection = false
        refusedNewConnection = false
    }
}

// libcurl callbacks: C function pointers, so no captures; the transfer comes through the
// user-data pointer set in `init`. Returning a short count makes libcurl abort the transfer
// with CURLE_WRITE_ERROR, which `finish` maps to `.responseTooLarge`.
private func curlWriteBody(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ user: UnsafeMutableRawPointer?) -> Int {
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(user!).takeUnretainedValue()
    let length = size * count
    return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}

private func curlWriteHeader(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ user: UnsafeMutableRawPointer?) -> Int {
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(user!).takeUnretainedValue()
    let length = size * count
    return transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}
