import Foundation
import TestSupport
import XCTest

/// Every bad input of every CLI surface (Tests/Corpus/<surface>/manifest.json) through the real
/// binary: the expected exit status, a message naming the file/flag/pointer and its fix, no
/// crash, no key material echoed, and no half-written output left behind.
final class BadInputCorpusTests: XCTestCase {
    override func setUpWithError() throws {
        try Fixtures.requirePushlab()
    }

    func testPayloadFiles() throws { try Corpus.runCLI("payload") }
    func testAPNsKeyFiles() throws { try Corpus.runCLI("apns-key") }
    func testServiceAccountFiles() throws { try Corpus.runCLI("service-account") }
    func testAppProfiles() throws { try Corpus.runCLI("app-profile") }
    func testDevicesAndFaultPlanFiles() throws { try Corpus.runCLI("gateway-files") }
    func testCommandLineFlags() throws { try Corpus.runCLI("flags") }
    func testGorushYAMLConfigs() throws { try Corpus.runCLI("gorush-yaml") }
}
