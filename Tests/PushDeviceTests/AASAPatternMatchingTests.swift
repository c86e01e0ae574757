import Foundation
@testable import PushDevice
import XCTest

/// apple-app-site-association `applinks` matching: `*` and `?` wildcards, `exclude`, query
/// items, fragments, case sensitivity, legacy `paths`, wildcard domains; the first matching
/// component decides.
final class AASAPatternMatchingTests: XCTestCase {
    func testStarMatchesAnyRunIncludingSlashesAndQuestionMarkExactlyOneCharacter() {
        XCTAssertTrue(AASAPattern("/products/*").matches("/products/42"))
        XCTAssertTrue(AASAPattern("/products/*").matches("/products/"))
        XCTAssertTrue(AASAPattern("/products/*").matches("/products/a/b/c"))
        XCTAssertFalse(AASAPattern("/products/*").matches("/product"))
        XCTAssertTrue(AASAPattern("/item/???").matches("/item/abc"))
        XCTAssertFalse(AASAPattern("/item/???").matches("/item/ab"))
        XCTAssertFalse(AASAPattern("/item/???").matches("/item/abcd"))
        XCTAssertTrue(AASAPattern("?*").matches("x"))
        XCTAssertFalse(AASAPattern("?*").matches(""))
        XCTAssertTrue(AASAPattern("*").matches(""))
        XCTAssertTrue(AASAPattern("/a*b*c").matches("/axxbyyc"))
        XCTAssertFalse(AASAPattern("/a*b*c").matches("/axxbyy"))
    }

    func testPatternsMatchTheWholeStringNotAPrefix() {
        XCTAssertFalse(AASAPattern("/help").matches("/help/faq"))
        XCTAssertFalse(AASAPattern("/help").matches("/x/help"))
    }

    func testManyStarsStayFast() {
        let subject = String(repeating: "a", count: 5_000)
        XCTAssertFalse(AASAPattern(String(repeating: "*a", count: 40) + "b").matches(subject))
    }

    func testCaseSensitiveByDefaultAndFoldedWhenAsked() {
        XCTAssertFalse(AASAPattern("/Products/*").matches("/products/1"))
        XCTAssertTrue(AASAPattern("/Products/*").matches("/products/1", caseSensitive: false))
        let domain = AssociatedDomain(domain: "example.com", components: [AASAComponent(path: "/Products/*", caseSensitive: false)])
        XCTAssertTrue(domain.verdict(for: URL(string: "https://example.com/PRODUCTS/9")!).isUniversalLink)
    }

    func testFirstMatchingComponentDecidesSoAnEarlierExclusionWins() {
        let rules = [AASAComponent(path: "/products/hidden/*", exclude: true), AASAComponent(path: "/products/*")]
        let domain = AssociatedDomain(domain: "example.com", components: rules)
        XCTAssertEqual(domain.verdict(for: URL(string: "https://example.com/products/hidden/1")!), .excluded(rule: "components[0]"))
        XCTAssertEqual(domain.verdict(for: URL(string: "https://example.com/products/1")!), .included(rule: "components[1]"))
        XCTAssertEqual(domain.verdict(for: URL(string: "https://example.com/about")!), .noMatch)
        // The same rules in the other order: the broad component matches first.
        let reversed = AssociatedDomain(domain: "example.com", components: rules.reversed())
        XCTAssertTrue(reversed.verdict(for: URL(string: "https://example.com/products/hidden/1")!).isUniversalLink)
    }

    func testQueryItemRulesRequireEveryListedItemAndIgnoreOthers() throws {
        let json = #"[{"/": "/orders", "?": {"id": "?*", "src": "push"}}]"#
        let components = try JSONDecoder().decode([AASAComponent].self, from: Data(json.utf8))
        let domain = AssociatedDomain(domain: "example.com", components: components)
        XCTAssertTrue(domain.verdict(for: URL(string: "https://example.com/orders?src=push&id=7&x=1")!).isUniversalLink)
        XCTAssertFalse(domain.verdict(for: URL(string: "https://example.com/orders?id=7")!).isUniversalLink)
        XCTAssertFalse(domain.verdict(for: URL(string: "https://example.com/orders?id=&src=push")!).isUniversalLink)
        XCTAssertFalse(domain.verdict(for: URL(string: "https://example.com/orders")!).isUniversalLink)
    }

    func testQueryAsAStringMatchesTheWholeQuery() throws {
        let components = try JSONDecoder().decode([AASAComponent].self, from: Data(#"[{"/": "/s", "?": "q=*"}]"#.utf8))
        let domain = AssociatedDomain(domain: "example.com", components: components)
        XCTAssertTrue(domain.verdict(for: URL(string: "https://example.com/s?q=kettle")!).isUniversalLink)
        XCTAssertFalse(domain.verdict(for: URL(string: "https://example.com/s?page=2")!).isUniversalLink)
    }

    func testFragmentRule() throws {
        let components = try JSONDecoder().decode([AASAComponent].self, from: Data(##"[{"/": "/help/*", "#": "faq-*"}]"##.utf8))
        let domain = AssociatedDomain(domain: "example.com", components: components)
        XCTAssertTrue(domain.verdict(for: URL(string: "https://example.com/help/a#faq-3")!).isUniversalLink)
        XCTAssertFalse(domain.verdict(for: URL(string: "https://example.com/help/a#top")!).isUniversalLink)
        XCTAssertFalse(domain.verdict(for: URL(string: "https://example.com/help/a")!).isUniversalLink)
    }

    func testPercentEncodedPatternsCompareDecoded() {
        let domain = AssociatedDomain(domain: "example.com", components: [AASAComponent(path: "/summer%20sale/*")])
        XCTAssertTrue(domain.verdict(for: URL(string: "https://example.com/summer%20sale/1")!).isUniversalLink)
    }

    func testLegacyPathsWithNOTExclusions() {
        let domain = AssociatedDomain(domain: "example.com", paths: ["NOT /admin/*", "/*"])
        XCTAssertEqual(domain.verdict(for: URL(string: "https://example.com/admin/users")!), .excluded(rule: "paths[0]"))
        XCTAssertTrue(domain.verdict(for: URL(string: "https://example.com/shop")!).isUniversalLink)
    }

    func testWildcardDomainCoversSubdomainsButNotTheApex() {
        let d = AssociatedDomain(domain: "applinks:*.example.com", paths: ["*"])
        XCTAssertTrue(d.coversHost("www.example.com"))
        XCTAssertTrue(d.coversHost("a.b.EXAMPLE.com"))
        XCTAssertFalse(d.coversHost("example.com"))
        XCTAssertFalse(d.coversHost("badexample.com"))
        XCTAssertTrue(AssociatedDomain(domain: "applinks:Example.com?mode=developer").coversHost("example.com"))
    }

    func testAnAASAFileYieldsTheRulesOfTheAppItLists() throws {
        let file = #"""
        {"applinks": {"details": [
          {"appIDs": ["PLDEVTEAM1.io.pushlab.other"], "components": [{"/": "/*"}]},
          {"appIDs": ["PLDEVTEAM1.io.pushlab.demo"], "components": [{"/": "/admin/*", "exclude": true}, {"/": "/*"}]}
        ]}}
        """#
        let doc = try AASADocument.parse(Array(file.utf8))
        let domain = try XCTUnwrap(doc.associatedDomain("links.pushlab.io", appID: "PLDEVTEAM1.io.pushlab.demo"))
        XCTAssertFalse(domain.verdict(for: URL(string: "https://links.pushlab.io/admin/x")!).isUniversalLink)
        XCTAssertTrue(domain.verdict(for: URL(string: "https://links.pushlab.io/x")!).isUniversalLink)
        XCTAssertNil(doc.associatedDomain("links.pushlab.io", appID: "PLDEVTEAM1.io.unknown"))
    }
}
