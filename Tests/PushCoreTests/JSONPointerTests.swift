import XCTest
@testable import PushCore

/// RFC 6901 pointers: parsing, rendering and lookup.
final class JSONPointerTests: XCTestCase {
    func testEscapesRoundTrip() throws {
        let p = try XCTUnwrap(JSONPointer(parsing: "/a~1b/c~0d/0"))
        XCTAssertEqual(p.tokens, ["a/b", "c~d", "0"])
        XCTAssertEqual(p.description, "/a~1b/c~0d/0")
        XCTAssertEqual(JSONPointer(tokens: ["Simulator Target Bundle"]).description, "/Simulator Target Bundle")
    }

    func testRootAndEmptyTokens() throws {
        XCTAssertEqual(JSONPointer(parsing: "")?.tokens, [])
        XCTAssertEqual(JSONPointer(parsing: "/")?.tokens, [""])
        XCTAssertEqual(JSONPointer.root.displayString, "(root)")
    }

    func testInvalidPointersAreRejected() {
        XCTAssertNil(JSONPointer(parsing: "aps"))
        XCTAssertNil(JSONPointer(parsing: "/a~2"))
        XCTAssertNil(JSONPointer(parsing: "/a~"))
    }

    func testLookupThroughObjectsAndArrays() throws {
        let doc = try JSONParser().parse(#"{"a/b":{"c~d":[10,20]},"":{"x":1}}"#)
        XCTAssertEqual(doc.value(at: "/a~1b/c~0d/1"), 20)
        XCTAssertEqual(doc.value(at: "//x"), 1)
        XCTAssertNil(doc.value(at: "/a~1b/c~0d/2"))
        XCTAssertNil(doc.value(at: "/a~1b/c~0d/01"), "leading zeros are not array indexes")
        XCTAssertNil(doc.value(at: "/a~1b/c~0d/-"))
    }

    func testAppendingBuildsEscapedPointers() {
        let p = JSONPointer.root / "message" / "data" / "a/b" / 3
        XCTAssertEqual(p.description, "/message/data/a~1b/3")
        XCTAssertEqual(p.parent?.description, "/message/data/a~1b")
    }
}
