
/// One request/response exchange on an HTTP/2 connection. Loop thread only.
///
/// `@exclusivity(unchecked)`: these fields are only touched on the loop thread, never while
/// another access to them is in progress; the dynamic exclusivity checks Swift would otherwise
/// run on every header and DATA chunk are a measurable share of the server's CPU
/// (benchmarks/results/design-measurements.md).
final class HTTP2Stream {
    @exclusivity(unchecked) var id: Int32
    @exclusivity(unchecked) var method = ""
    @exclusivity(unchecked) var path = ""
    @exclusivity(unchecked) var authority: String?
    /// This request's fields are the first `headerCount`; until the header block ends, the
    /// entries after them are the previous request's on this (pooled) stream, kept so that a
    /// repeated field is left in place (`HTTP2Session.header`).
    @exclusivity(unchecked) var headers: [HTTPHeader] = []
    @exclusivity(unchecked) var headerCount = 0
    @exclusivity(unchecked) var headerListBytes = 0
    @exclusivity(unchecked) var headersTooLarge = false
    @exclusivity(unchecked) var body: [UInt8] = []
    /// An answer was submitted (or a reset); later request frames are ignored.
    @exclusivity(unchecked) var answered = false
    @exclusivity(unchecked) var responseBody: [UInt8] = []
    @exclusivity(unchecked) var responseOffset = 0

    init(id: Int32) { self.id = id }

    /// Files the request's next field, over the previous request's field at that position.
    func addField(_ field: HTTPHeader) {
        if headerCount < headers.count { headers[headerCount] = field } else { headers.append(field) }
        headerCount += 1
    }

    /// Drops the previous request's fields after this request's (once its header block ended).
    func dropPreviousFields() {
        if headers.count > headerCount { headers.removeLast(headers.count - headerCount) }
    }

    /// Makes a closed stream reusable for `id`, keeping small buffers' capacity: a pooled
    /// stream saves the object, header-array and body allocations of the next request.
    func reuse(as id: Int32) {
        self.id = id
        method = ""
        path = ""
        authority = nil
        if headers.capacity > 32 { headers = [] }
        headerCount = 0
        headerListBytes = 0
        headersTooLarge = false
        body.removeAll(keepingCapacity: body.capacity <= 16 << 10)
        answered = false
        responseBody = []
        responseOffset = 0
    }
}
