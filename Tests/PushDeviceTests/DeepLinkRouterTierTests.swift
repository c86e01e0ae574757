import Foundation
@testable import PushDevice
import TestSupport
import XCTest

/// The three tiers of docs/specs/device-side.md §5, rule by rule.
final class DeepLinkRouterTierTests: XCTestCase {
    let ownDomain = AssociatedDomain(domain: "links.pushlab.io", components: [AASAComponent(path: "/*")])

    func testTier2SchemeCheckIsExactAndCaseSensitive() {
        let profile = DeepLinkProfile(associatedDomains: [ownDomain],
                                      appDelegate: .init(continueUserActivity: .init(accepts: ["*"])))
        let router = DeepLinkRouter(profile: profile)
        XCTAssertEqual(router.resolve("https://links.pushlab.io/a", state: .warm).tier, .continuation)
        XCTAssertEqual(router.resolve("http://links.pushlab.io/a", state: .warm).tier, .continuation)
        let upper = router.resolve("HTTPS://links.pushlab.io/a", state: .warm)
        XCTAssertEqual(upper.tier, .systemOpen)
        XCTAssertTrue(upper.diagnostics.contains(.uppercaseSchemeSkipsContinuation(scheme: "HTTPS")))
        XCTAssertEqual(upper.destination.kind, "browser")
        // An app scheme never goes to tier 2, even when the continuation would accept anything.
        XCTAssertEqual(router.resolve("pushlab://a", state: .warm).steps[1], .tierSkipped(.continuation, why: "not an http(s) link"))
    }

    func testCallbackReturningTrueStopsAtTier1() {
        let profile = DeepLinkProfile(callback: .init(accepts: ["*"]), appDelegate: .init(continueUserActivity: .init(accepts: ["*"])))
        let r = DeepLinkRouter(profile: profile).resolve("https://anything.example/x", state: .cold)
        XCTAssertEqual(r.tier, .callback)
        XCTAssertEqual(r.steps.count, 1)
    }

    func testSystemOpenOfTheAppsOwnSchemeUsesTheHandlerOfTheLaunchState() {
        let scene = DeepLinkProfile(urlSchemes: ["PushLab"],
                                    scene: .init(willConnectTo: .init(accepts: ["pushlab://cold/*"]),
                                                 openURLContexts: .init(accepts: ["pushlab://warm/*"])))
        let router = DeepLinkRouter(profile: scene)
        XCTAssertEqual(router.resolve("pushlab://cold/1", state: .cold).destination,
                       .appRoute(handler: "scene(_:willConnectTo:options:)", url: "pushlab://cold/1"))
        XCTAssertEqual(router.resolve("pushlab://warm/1", state: .warm).destination,
                       .appRoute(handler: "scene(_:openURLContexts:)", url: "pushlab://warm/1"))
        XCTAssertEqual(router.resolve("pushlab://warm/1", state: .cold).destination, .appHome)
    }

    func testAnotherAppsUniversalLinkOpensThatAppButHttpNever() {
        let shop = DeepLinkProfile.InstalledApp(name: "Shop", associatedDomains: [AssociatedDomain(domain: "shop.example.com", paths: ["/item/*"])])
        let router = DeepLinkRouter(profile: DeepLinkProfile(installedApps: [shop]))
        XCTAssertEqual(router.resolve("https://shop.example.com/item/1", state: .warm).destination,
                       .otherApp(name: "Shop", url: "https://shop.example.com/item/1"))
        XCTAssertEqual(router.resolve("https://shop.example.com/about", state: .warm).destination.kind, "browser")
        XCTAssertEqual(router.resolve("http://shop.example.com/item/1", state: .warm).destination.kind, "browser")
    }

    func testOwnUniversalLinkIsNeverRoutedBackByTier3() {
        let router = DeepLinkRouter(profile: DeepLinkProfile(associatedDomains: [ownDomain]))
        let r = router.resolve("https://links.pushlab.io/products/1", state: .warm)
        XCTAssertEqual(r.destination, .browser(url: "https://links.pushlab.io/products/1"))
        XCTAssertTrue(r.diagnostics.contains(.ownUniversalLinkOpensBrowser(domain: "links.pushlab.io")))
        XCTAssertTrue(r.diagnostics.contains(.continuationNotImplemented))
    }

    func testAdoptingUISceneMovesHandlersAndBreaksTier2() {
        let before = DeepLinkProfile(urlSchemes: ["pushlab"], associatedDomains: [ownDomain],
                                     appDelegate: .init(continueUserActivity: .init(accepts: ["https://links.pushlab.io/*"]),
                                                        openURL: .init(accepts: ["pushlab://*"])))
        let after = before.adoptingUIScene()
        XCTAssertNil(after.appDelegate.continueUserActivity)
        XCTAssertEqual(after.scene?.continueUserActivity, before.appDelegate.continueUserActivity)
        XCTAssertEqual(DeepLinkRouter(profile: before).resolve("https://links.pushlab.io/x", state: .warm).tier, .continuation)
        let broken = DeepLinkRouter(profile: after).resolve("https://links.pushlab.io/x", state: .warm)
        XCTAssertEqual(broken.destination.kind, "browser")
        XCTAssertTrue(broken.diagnostics.contains(.sceneAppWithoutCallback))
    }

    func testBridgeWaitsForReadinessUpToTenSecondsThenFallsBackToTier3() {
        func profile(_ ready: Double?) -> DeepLinkProfile {
            DeepLinkProfile(urlSchemes: ["pushlab"], callback: .init(accepts: ["pushlab://*"]),
                            appDelegate: .init(openURL: .init(accepts: ["pushlab://*"])),
                            bridge: .init(framework: .flutter, readyAfterSeconds: ready))
        }
        let ready = DeepLinkRouter(profile: profile(10)).resolve("pushlab://a", state: .cold)
        XCTAssertEqual(ready.tier, .callback)
        XCTAssertEqual(ready.atSeconds, 10)
        let late = DeepLinkRouter(profile: profile(10.5)).resolve("pushlab://a", state: .cold)
        XCTAssertEqual(late.tier, .systemOpen)
        XCTAssertEqual(late.atSeconds, 10)
        XCTAssertEqual(late.destination, .appRoute(handler: "application(_:open:options:)", url: "pushlab://a"))
        XCTAssertTrue(late.diagnostics.contains(.bridgeNotReady(framework: "flutter", readyAfterSeconds: 10.5)))
        // Warm: the bridge is up, no buffering.
        XCTAssertEqual(DeepLinkRouter(profile: profile(nil)).resolve("pushlab://a", state: .warm).atSeconds, 0)
    }

    func testEveryDiagnosticHasAMessageAndAFix() {
        let all: [DeepLinkDiagnostic] = [
            .unparsableLink(link: "x"), .linkNotPercentEncoded(link: "x", parsedOnThisOS: true), .linkWithoutScheme(link: "x"),
            .uppercaseSchemeSkipsContinuation(scheme: "HTTPS"), .sceneAppWithoutCallback, .continuationNotImplemented,
            .continuationDeclined(url: "u"), .callbackDeclined(url: "u"), .ownUniversalLinkOpensBrowser(domain: "d"),
            .httpIsNeverAUniversalLink(domain: "d"), .pathNotClaimed(domain: "d", verdict: "v"), .plainWebLink(host: "h"),
            .schemeNotRegistered(scheme: "s"), .urlHandlerDoesNotRoute(handler: "h", url: "u"), .otherAppClaimsLink(app: "a"),
            .coldStartTapNotCounted, .bridgeNotReady(framework: "expo", readyAfterSeconds: nil),
            .bridgeDeliveredAfterReady(framework: "expo", seconds: 1), .notShownInForeground, .notACustomerIOPush,
            .noOpenedMetricForAction(action: "dismiss"), .automaticTrackingOff, .noLink,
        ]
        XCTAssertEqual(Set(all.map(\.code)).count, all.count, "codes must be unique")
        let docs = (try? String(contentsOfFile: Fixtures.path("docs/deep-links.md"), encoding: .utf8)) ?? ""
        for d in all {
            XCTAssertFalse(d.message.isEmpty, d.code)
            XCTAssertFalse(d.fix.isEmpty, d.code)
            XCTAssertTrue(docs.contains("`\(d.code)`"), "docs/deep-links.md does not document \(d.code)")
        }
    }
}
