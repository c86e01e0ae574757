import PushStore
import XCTest

/// `FilePaths.parent(of:)` gives what `NSString.deletingLastPathComponent` gives, also for the
/// one-character names on which swift-corelibs-foundation's version traps (`--data d`).
final class FilePathsTests: XCTestCase {
    func testTheParentOfCommandLinePaths() {
        let cases: [(String, String)] = [("d", ""), ("relay-data", ""), ("a/b", "a"), ("a/b/", "a"), ("a//b", "a"), ("e/f/g", "e/f"),
                                         ("/a", "/"), ("/", "/"), ("./d", "."), ("/tmp/x/relay.json", "/tmp/x"), ("", "")]
        for (path, parent) in cases { XCTAssertEqual(FilePaths.parent(of: path), parent, "parent of '\(path)'") }
    }
}
