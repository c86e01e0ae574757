import PushRedis
import XCTest

final class RedisEndpointTests: XCTestCase {
    func testHostPortAndDatabase() throws {
        let endpoint = try RedisEndpoint(url: "redis://10.0.0.5:6380/2")
        XCTAssertEqual(endpoint, RedisEndpoint(host: "10.0.0.5", port: 6380, database: 2))
    }

    func testDefaultsArePort6379AndDatabase0() throws {
        XCTAssertEqual(try RedisEndpoint(url: "redis://cache"), RedisEndpoint(host: "cache"))
        XCTAssertEqual(try RedisEndpoint(url: "redis://cache/"), RedisEndpoint(host: "cache"))
    }

    func testIPv6Host() throws {
        XCTAssertEqual(try RedisEndpoint(url: "redis://[::1]:7000"), RedisEndpoint(host: "::1", port: 7000))
    }

    func testPasswordIsParsedAndNeverShown() throws {
        let endpoint = try RedisEndpoint(url: "redis://relay:s3cret@cache:6379/1")
        XCTAssertEqual(endpoint.username, "relay")
        XCTAssertEqual(endpoint.password, "s3cret")
        XCTAssertEqual(endpoint.description, "redis://relay:<redacted>@cache:6379/1")
        XCTAssertFalse("\(endpoint)".contains("s3cret"))
    }

    func testWrongSchemeSaysHowToWriteIt() {
        XCTAssertThrowsError(try RedisEndpoint(url: "http://cache:6379")) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("does not start with redis://"), text)
            XCTAssertTrue(text.contains("redis://HOST:PORT[/DB]"), text)
        }
    }

    func testBadPortAndDatabaseAreNamed() {
        XCTAssertThrowsError(try RedisEndpoint(url: "redis://cache:99999")) { XCTAssertTrue("\($0)".contains("port '99999'")) }
        XCTAssertThrowsError(try RedisEndpoint(url: "redis://cache:6379/x")) { XCTAssertTrue("\($0)".contains("database 'x'")) }
        XCTAssertThrowsError(try RedisEndpoint(url: "redis://:6379")) { XCTAssertTrue("\($0)".contains("host is missing")) }
    }

    func testErrorNeverShowsThePassword() {
        XCTAssertThrowsError(try RedisEndpoint(url: "redis://u:hunter2@cache:bad")) { error in
            XCTAssertFalse("\(error)".contains("hunter2"), "\(error)")
        }
    }
}
