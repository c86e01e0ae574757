@testable import PushCore
import XCTest

/// The checks' tables as `KnownNames` (each name normalised once) give `closestName`'s answers,
/// and `editDistance` with a limit is exact up to it.
final class KnownNamesTests: XCTestCase {
    func testEveryTableAnswersAsClosestName() {
        let tables: [KnownNames] = [APSChecks.knownNames, APSChecks.alertNames, APNsChecks.pushTypeNames, CIOChecks.pushKeyNames,
                                    FCMChecks.requestNames, FCMChecks.messageNames, FCMChecks.notificationNames, FCMChecks.apnsNames,
                                    FCMChecks.androidNames, FCMChecks.webpushNames, FCMChecks.messageOptionNames, FCMChecks.apnsOptionNames]
        XCTAssertEqual(APSChecks.knownNames.names, APSChecks.knownKeys)
        XCTAssertEqual(FCMChecks.messageNames.names, FCMChecks.messageKeys)
        let keys = ["mutable_content", "alrt", "titel", "imgae", "lnk", "Background", "tokn", "notifcation", "APNS", "ttl_",
                    "analytics-label", "fcmoptions", "ÉVENT", "ima\u{212A}e", "", "x", String(repeating: "b", count: 40)]
        for table in tables {
            for name in table.names { XCTAssertTrue(table.contains(name)) }
            XCTAssertFalse(table.contains("not-a-known-name"))
            for key in keys + table.names.map({ $0.uppercased() }) + table.names.map({ String($0.dropLast()) }) {
                XCTAssertEqual(table.closest(to: key), closestName(to: key, in: table.names), "\(key) in \(table.names)")
            }
        }
    }

    func testEditDistanceWithALimitIsExactUpToIt() {
        var random = SeededRandom(seed: 2131)
        for _ in 0..<3_000 {
            let a = (0..<Int(random.next() % 9)).map { _ in UInt8(0x61 + random.next() % 3) }
            let b = (0..<Int(random.next() % 9)).map { _ in UInt8(0x61 + random.next() % 3) }
            let exact = editDistance(a, b)
            for limit in 0...3 {
                let d = editDistance(a, b, limit: limit)
                if exact <= limit { XCTAssertEqual(d, exact, "\(a) \(b) limit \(limit)") } else { XCTAssertGreaterThan(d, limit, "\(a) \(b) limit \(limit)") }
            }
        }
    }
}
