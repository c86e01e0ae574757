import XCTest
import TestSupport
@testable import PushCore

/// docs/validation.md lists every rule and matches the catalog.
final class RuleDocumentationTests: XCTestCase {
    func testDocsPageIsInSyncWithTheCatalog() throws {
        let page = try String(contentsOfFile: Fixtures.path("docs/validation.md"), encoding: .utf8)
        XCTAssertEqual(page, RuleCatalog.markdown(),
                       "docs/validation.md is stale: run `pushlab validate --rules --markdown > docs/validation.md`")
        for rule in RuleCatalog.all { XCTAssertTrue(page.contains("`\(rule.id)`"), rule.id) }
    }
}
