import Foundation
import TestSupport
import XCTest
@testable import PushConsole

/// The console's script and style are real files (Sources/PushConsole/Assets) compiled into the
/// binary: what the binary serves is those files byte for byte, and the script parses
/// (`node --check`, Debian's nodejs, installed by scripts/bootstrap).
final class ConsoleAssetsTests: XCTestCase {
    private var assets: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/PushConsole/Assets")
    }

    func testEmbeddedAssetsAreTheFilesUnderAssets() throws {
        for (name, embedded) in [("app.js", ConsoleAssets.script), ("app.css", ConsoleAssets.style), ("console.html", ConsoleAssets.page)] {
            let file = try String(contentsOf: assets.appendingPathComponent(name), encoding: .utf8)
            XCTAssertFalse(file.isEmpty, name)
            XCTAssertEqual(embedded, file, "\(name): the binary embeds another text than the file (rebuild)")
        }
    }

    func testScriptParsesWithNodeCheck() throws {
        let result = try ProcessRunner.run("/usr/bin/node", ["--check", assets.appendingPathComponent("app.js").path])
        XCTAssertEqual(result.status, 0, "node --check Sources/PushConsole/Assets/app.js: \(result.stderr)")
    }
}
