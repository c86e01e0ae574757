import XCTest
@testable import PushHTTP

/// `ConnectionStorage.update` remembers the key and slot it used last; `set` and a value of
/// another type under that key must still win.
final class ConnectionStorageTests: XCTestCase {
    func testUpdateSeesSetAndOtherKeysAndTypes() {
        let storage = ConnectionStorage()
        XCTAssertEqual(storage.update("a", default: 1) { value -> Int in value += 1; return value }, 2)
        XCTAssertEqual(storage.update("a", default: 1) { value -> Int in value += 1; return value }, 3)
        storage.set("a", 10)
        XCTAssertEqual(storage.update("a", default: 1) { value -> Int in value += 1; return value }, 11)
        XCTAssertEqual(storage.update("b", default: 100) { value -> Int in value += 1; return value }, 101)
        XCTAssertEqual(storage.update("a", default: 1) { value -> Int in value += 1; return value }, 12)
        // Another type under the same key replaces the value with the default, transformed.
        XCTAssertEqual(storage.update("a", default: "x") { value -> String in value += "y"; return value }, "xy")
        XCTAssertNil(storage["a", as: Int.self])
        XCTAssertEqual(storage["a", as: String.self], "xy")
        storage.set("a", Optional<String>.none)
        XCTAssertNil(storage["a", as: String.self])
        XCTAssertEqual(storage.update("a", default: "n") { value -> String in value += "!"; return value }, "n!")
        XCTAssertEqual(storage["b", as: Int.self], 101)
    }
}
