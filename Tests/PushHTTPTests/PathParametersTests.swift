import PushHTTP
import XCTest

/// `PathParameters` (the route's `{name}` values, first one inline) reads, replaces and removes
/// like the dictionary it replaced, and the router fills it for routes with one and several parameters.
final class PathParametersTests: XCTestCase {
    func testReadsReplacesAndRemovesLikeADictionary() {
        var parameters = PathParameters()
        XCTAssertTrue(parameters.isEmpty)
        XCTAssertNil(parameters["token"])
        parameters["token"] = "abc"
        parameters["project"] = "demo"
        parameters["third"] = "3"
        XCTAssertEqual(parameters.count, 3)
        XCTAssertEqual(parameters["token"], "abc")
        XCTAssertEqual(parameters["project"], "demo")
        XCTAssertEqual(parameters["third"], "3")
        XCTAssertNil(parameters["Token"], "names are exact")
        parameters["project"] = "other"      // replace a later one
        parameters["token"] = "def"          // replace the first
        XCTAssertEqual(parameters.dictionary, ["token": "def", "project": "other", "third": "3"])
        parameters["token"] = nil            // remove the first: the next one moves up
        XCTAssertEqual(parameters.dictionary, ["project": "other", "third": "3"])
        XCTAssertFalse(parameters.isEmpty)
        XCTAssertEqual(parameters.count, 2)
        XCTAssertEqual(parameters["project"], "other")
        parameters["third"] = nil
        parameters["project"] = nil
        XCTAssertTrue(parameters.isEmpty)
        parameters["again"] = "x"
        XCTAssertEqual(parameters, ["again": "x"])
    }

    func testEqualityIgnoresOrder() {
        XCTAssertEqual(PathParameters(dictionaryLiteral: ("a", "1"), ("b", "2")), ["b": "2", "a": "1"])
        XCTAssertNotEqual(PathParameters(dictionaryLiteral: ("a", "1"), ("b", "2")), ["a": "1"])
        XCTAssertNotEqual(PathParameters(dictionaryLiteral: ("a", "1")), ["a": "2"])
        XCTAssertEqual(PathParameters(), [:])
    }

    func testTheRouterBindsOneAndSeveralParameters() {
        var router = Router()
        router.add("POST", "/3/device/{token}") { _ in .now(ServerResponse(status: 200)) }
        router.add("GET", "/a/{x}/b/{y}/{z}") { _ in .now(ServerResponse(status: 200)) }
        guard case .found(_, let one) = router.match(method: "POST", path: "/3/device/" + String(repeating: "ab", count: 32)) else {
            return XCTFail("no APNs route")
        }
        XCTAssertEqual(one["token"], String(repeating: "ab", count: 32))
        XCTAssertEqual(one.count, 1)
        guard case .found(_, let three) = router.match(method: "GET", path: "/a/1/b/2/3") else { return XCTFail("no route") }
        XCTAssertEqual(three, ["x": "1", "y": "2", "z": "3"])
        XCTAssertEqual(three["z"], "3")
    }
}
