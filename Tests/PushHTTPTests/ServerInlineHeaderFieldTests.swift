import Foundation
import PushHTTP
import TestSupport
import XCTest

/// `ServerResponse.inlineHeaders` (values held inline, the APNs emulator's ids) go out exactly
/// as `headers` fields would, after them: on HTTP/2 through the small stack block and through
/// the `HeaderBlock` a large answer needs, on HTTP/1.1, names lowercased for HTTP/2, values
/// byte for byte (letter case kept), and a field with a value too long is refused.
final class ServerInlineHeaderFieldTests: XCTestCase {
    static let id = "9F4A4c1e-6b1d-4f1e-9a7e-0c1b2d3e4f50"
    static let second = "0123456789abcdef0123456789ABCDEF01234567"  // exactly `capacity` bytes

    private func field(_ name: String, _ value: String) throws -> InlineHeaderField {
        try XCTUnwrap(Array(value.utf8).withUnsafeBufferPointer { InlineHeaderField(name, bytes: $0) })
    }

    private func router() throws -> Router {
        let id = try field("X-Inline-Id", Self.id), second = try field("x-second", Self.second)
        var router = Router()
        router.add("GET", "/small") { _ in .now(ServerResponse(status: 201, headers: ["x-plain": "p"], inlineHeaders: InlineHeaderFields(id, second))) }
        router.add("GET", "/bare") { _ in .now(ServerResponse(status: 200, inlineHeaders: InlineHeaderFields(id))) }
        // Too many fields for the stack block: the answer goes through `HeaderBlock`.
        router.add("GET", "/large") { _ in
            var response = ServerResponse.json(400, #"{"reason":"x"}"#, inlineHeaders: InlineHeaderFields(id, second))
            for n in 0..<8 { response.headers.add("x-filler-\(n)", String(repeating: "f", count: 80)) }
            return .now(response)
        }
        return router
    }

    /// The `name: value` lines of a curl header dump, names lowercased.
    private func fields(_ dump: String) -> [String: String] {
        var out: [String: String] = [:]
        for line in dump.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            out[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return out
    }

    func testInlineFieldsGoOutOverHTTP2AndHTTP1ByteForByte() async throws {
        let server = try ServerTestFixture.start(try router())
        addTeardownBlock { await server.stop() }
        for (flag, url) in [("--http2", "https://localhost:\(server.tlsPort!)"), ("--http1.1", "http://127.0.0.1:\(server.cleartextPort!)")] {
            let small = try ServerTestFixture.curl([flag, url + "/small"])
            XCTAssertEqual(small.status, 201, small.stderr)
            var got = fields(small.headers)
            XCTAssertEqual(got["x-inline-id"], Self.id, "\(flag): \(small.headers)")
            XCTAssertEqual(got["x-second"], Self.second, "\(flag): \(small.headers)")
            XCTAssertEqual(got["x-plain"], "p", "\(flag): \(small.headers)")
            if flag == "--http2" { XCTAssertTrue(small.headers.contains("x-inline-id: " + Self.id), "lowercase name: \(small.headers)") }

            let bare = try ServerTestFixture.curl([flag, url + "/bare"])
            XCTAssertEqual(bare.status, 200, bare.stderr)
            XCTAssertEqual(fields(bare.headers)["x-inline-id"], Self.id, "\(flag): the only field of an empty answer: \(bare.headers)")

            let large = try ServerTestFixture.curl([flag, url + "/large"])
            XCTAssertEqual(large.status, 400, large.stderr)
            got = fields(large.headers)
            XCTAssertEqual(got["x-inline-id"], Self.id, "\(flag): \(large.headers)")
            XCTAssertEqual(got["x-second"], Self.second, "\(flag): \(large.headers)")
            XCTAssertEqual(got["x-filler-7"], String(repeating: "f", count: 80), "\(flag): \(large.headers)")
            XCTAssertEqual(got["content-length"], "14", "\(flag): \(large.headers)")
            XCTAssertEqual(large.bodyText, #"{"reason":"x"}"#)
        }
    }

    func testANameOrValueLongerThanTheCapacityIsRefusedAndAFieldReadsBackAsAHeader() throws {
        XCTAssertNil(Array(String(repeating: "a", count: InlineHeaderField.capacity + 1).utf8).withUnsafeBufferPointer { InlineHeaderField("x", bytes: $0) })
        XCTAssertNil([UInt8]().withUnsafeBufferPointer { InlineHeaderField(String(repeating: "n", count: InlineHeaderField.nameCapacity + 1), bytes: $0) })
        let id = try field("apns-id", Self.id)
        XCTAssertEqual(id.header, HTTPHeader("apns-id", Self.id))
        let other = try XCTUnwrap(Array(Self.second.utf8).withUnsafeBufferPointer { id.with(value: $0) })
        XCTAssertEqual(other.header, HTTPHeader("apns-id", Self.second), "the name kept, the value replaced")
        XCTAssertEqual(id.header, HTTPHeader("apns-id", Self.id), "the template unchanged")
        var fields = InlineHeaderFields()
        XCTAssertTrue(fields.isEmpty)
        XCTAssertTrue(fields.append(id))
        XCTAssertTrue(fields.append(try field("apns-unique-id", Self.second)))
        XCTAssertFalse(fields.append(id), "two at most")
        XCTAssertEqual(fields.count, 2)
        XCTAssertEqual(fields["APNS-ID"], Self.id)
        XCTAssertEqual(fields.map(\.name), ["apns-id", "apns-unique-id"])
    }
}
