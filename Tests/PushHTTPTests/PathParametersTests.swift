import XCTest
@testable import PushHTTP

/// `PathParameters` reads a parameter from the matched path when asked: each name gives the
/// path's component at its segment's position, as the router's dictionary gave it.
final class PathParametersTests: XCTestCase {
    private func parameters(_ pattern: String, _ path: String, method: String = "POST") -> PathParameters? {
        var router = Router()
        router.add(method, pattern) { _ in .now(.text(200, "")) }
        guard case .found(_, let parameters) = router.match(method: method, path: path) else { return nil }
        return parameters
    }

    func testEachNameReadsTheComponentAtItsSegment() throws {
        let p = try XCTUnwrap(parameters("/v1/{app}/pushes/{id}/{part}", "/v1/demo/pushes/42/body"))
        XCTAssertEqual(p["app"], "demo")
        XCTAssertEqual(p["id"], "42")
        XCTAssertEqual(p["part"], "body")
        XCTAssertEqual(p.count, 3)
        XCTAssertEqual(p, ["app": "demo", "id": "42", "part": "body"])
    }

    func testANameThePatternDoesNotHaveIsNil() throws {
        let p = try XCTUnwrap(parameters("/3/device/{token}", "/3/device/" + String(repeating: "ab", count: 32)))
        XCTAssertEqual(p["token"], String(repeating: "ab", count: 32))
        XCTAssertNil(p["device"])
        XCTAssertNil(p["3"])
    }

    func testTheFirstParameterAndOneBetweenLiterals() throws {
        XCTAssertEqual(parameters("/{project}/messages:send", "/demo/messages:send")?["project"], "demo")
        XCTAssertEqual(parameters("/v1/projects/{project}/messages:send", "/v1/projects/p-1/messages:send")?["project"], "p-1")
    }

    /// A name used twice in one pattern reads its last segment, as the dictionary the router filled
    /// segment by segment kept it.
    func testARepeatedNameReadsItsLastSegment() throws {
        let p = try XCTUnwrap(parameters("/{x}/mid/{x}", "/first/mid/second"))
        XCTAssertEqual(p["x"], "second")
        XCTAssertEqual(p.count, 1)
        XCTAssertEqual(p.dictionary, ["x": "second"])
    }

    func testALiteralRouteHasNoParameters() throws {
        let p = try XCTUnwrap(parameters("/admin/pushes", "/admin/pushes", method: "GET"))
        XCTAssertTrue(p.isEmpty)
        XCTAssertEqual(p, [:])
        XCTAssertNil(p["pushes"])
    }

    /// Percent-encoding is kept, as the path is.
    func testValuesAreThePathsBytes() throws {
        XCTAssertEqual(parameters("/items/{name}", "/items/a%20b%2Fc")?["name"], "a%20b%2Fc")
        XCTAssertEqual(parameters("/items/{name}", "/items/caf\u{e9}")?["name"], "caf\u{e9}")
    }

    /// A pattern's `{}` binds the empty name.
    func testTheEmptyNameBinds() throws {
        let p = try XCTUnwrap(parameters("/e/{}", "/e/v", method: "GET"))
        XCTAssertEqual(p[""], "v")
        XCTAssertEqual(p.count, 1)
        XCTAssertNil(p["e"])
    }

    func testSetByHandFromADictionary() {
        let p: PathParameters = ["token": "abc"]
        XCTAssertEqual(p["token"], "abc")
        XCTAssertEqual(PathParameters(["a": "1"]), ["a": "1"])
        XCTAssertNotEqual(PathParameters(["a": "1"]), ["a": "2"])
    }
}
