import Foundation
import PushRelay
import TestSupport
import XCTest

/// relay.json: a complete file reads as written; each mistake names the file and JSON pointer.
final class RelayConfigTests: XCTestCase {
    private func parse(_ json: String) throws -> RelayConfig {
        try RelayConfig.parse(Array(json.utf8), source: "relay.json", baseDirectory: Fixtures.root.path)
    }

    private let apns = #"{"key": "certs/AuthKey_PLDEVKEY01.p8", "key_id": "PLDEVKEY01", "team_id": "PLDEVTEAM1", "bundle_id": "io.pushlab.demo"}"#

    private func assertError(_ json: String, pointer: String, contains text: String, file: StaticString = #filePath, line: UInt = #line) {
        do {
            _ = try parse(json)
            XCTFail("expected an error at \(pointer)", file: file, line: line)
        } catch let error as RelayConfigError {
            XCTAssertEqual(error.file, "relay.json", file: file, line: line)
            XCTAssertEqual(error.pointer, pointer, "\(error)", file: file, line: line)
            XCTAssertTrue(error.message.contains(text), "\(error)", file: file, line: line)
            XCTAssertFalse(error.fix.isEmpty, file: file, line: line)
        } catch {
            XCTFail("\(error)", file: file, line: line)
        }
    }

    func testCompleteConfigReadsAsWritten() throws {
        let config = try parse("""
            {"listen": {"host": "127.0.0.1", "port": 9000},
             "queue": {"capacity": 5000, "fsync": false},
             "limits": {"max_targets": 100},
             "workers": {"concurrency": 8, "max_attempts": 3, "transport": "curl"},
             "apps": {
               "shop": {"apns": \(apns.dropLast()), "environment": "production"}, "rate_per_minute": 6000},
               "news": {"target": "emulator", "fcm": {"service_account": "certs/fcm-service-account.json"}}}}
            """)
        XCTAssertEqual(config.listen.port, 9000)
        XCTAssertEqual(config.queue.capacity, 5000)
        XCTAssertFalse(config.queue.fsync)
        XCTAssertEqual(config.limits.maxTargets, 100)
        XCTAssertEqual(config.workers.concurrency, 8)
        XCTAssertEqual(config.workers.transport, .curl)
        XCTAssertEqual(try parse(#"{"apps": {"a": {"apns": \#(apns)}}}"#).workers.transport, .nghttp2, "the default, as send apns")
        XCTAssertEqual(config.apps.map(\.name), ["shop", "news"])
        let shop = try XCTUnwrap(config.app(named: "shop"))
        XCTAssertEqual(shop.apns?.environment, .production)
        XCTAssertEqual(shop.apns?.target, .apple)
        XCTAssertEqual(shop.apns?.authentication, .token(keyPath: Fixtures.apnsKey, keyID: Fixtures.apnsKeyID, teamID: Fixtures.apnsTeamID),
                       "paths resolve against the config's directory")
        XCTAssertEqual(shop.ratePerMinute, 6000)
        XCTAssertEqual(config.app(named: "news")?.fcm?.target, .emulator)
    }

    func testMistakesNameTheirPointer() {
        assertError("{}", pointer: "/apps", contains: "no apps")
        assertError(#"{"apps": {"a": {}}}"#, pointer: "/apps/a", contains: "neither")
        assertError(#"{"apps": {"a": {"apns": {"key": "certs/AuthKey_PLDEVKEY01.p8"}}}}"#, pointer: "/apps/a/apns/key_id", contains: "required")
        assertError(#"{"apps": {"a": {"apns": {"key": "certs/missing.p8", "key_id": "K", "team_id": "T", "bundle_id": "b"}}}}"#,
                    pointer: "/apps/a/apns/key", contains: "cannot read")
        assertError(#"{"apps": {"a": {"apns": \#(apns), "target": "mars"}}}"#, pointer: "/apps/a/target", contains: "not one of")
        assertError(#"{"apps": {"a": {"apns": \#(apns)}}, "queue": {"capacity": "big"}}"#, pointer: "/queue/capacity", contains: "whole number")
        assertError(#"{"apps": {"a": {"apns": \#(apns)}}, "lisen": {}}"#, pointer: "/lisen", contains: "unknown field")
        assertError(#"{"apps": {"a": {"apns": \#(apns)}}, "workers": {"transport": "quic"}}"#, pointer: "/workers/transport", contains: "not one of")
        assertError(#"{"apps": {"a b": {"apns": \#(apns)}}}"#, pointer: "/apps/a b", contains: "URL-safe")
        assertError(#"{"apps": {"a": {"apns": \#(apns)}}, "listen": {"host": "0.0.0.0"}, "gorush": {"unauthenticated": true}}"#,
                    pointer: "/gorush/unauthenticated", contains: "loopback only")
        assertError(#"{"apps": {"a": {"apns": \#(apns)}}, "listen": {"tls_port": 0}}"#, pointer: "/listen/tls_port", contains: "certificate")
        assertError("{", pointer: "", contains: "not JSON")
    }
}
