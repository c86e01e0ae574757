@testable import PushCore
import XCTest

/// `KnownNames.closest` (the validator's "did you mean") normalises each name once, where the
/// table is made, and ASCII by a byte loop; its answers must be those of the plain definition
/// below: lowercase, drop '-' and '_', the first equal name, else the nearest within edit
/// distance 2 (first of equals). And `editDistance` with a limit is exact up to it.
final class KnownNamesTests: XCTestCase {
    /// The definition, written the slow and obvious way (no shared code with `KnownNames`).
    private func reference(_ key: String, _ names: [String]) -> String? {
        func norm(_ s: String) -> String { s.lowercased().filter { $0 != "-" && $0 != "_" } }
        func distance(_ a: String, _ b: String) -> Int {
            let a = Array(a.utf8), b = Array(b.utf8)
            var row = Array(0...b.count)
            for i in stride(from: 1, through: a.count, by: 1) {
                var previous = row[0]
                row[0] = i
                for j in stride(from: 1, through: b.count, by: 1) {
                    let current = row[j]
                    row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                    previous = current
                }
            }
            return row[b.count]
        }
        let k = norm(key)
        if let same = names.first(where: { norm($0) == k }) { return same }
        var best: (String, Int)?
        for n in names {
            let d = distance(k, norm(n))
            if d <= 2, d < (best?.1 ?? Int.max) { best = (n, d) }
        }
        return best?.0
    }

    /// Every table the checks keep, and a few made here for case, '-'/'_' and empty names.
    private let tables: [KnownNames] = [
        APSChecks.knownKeys, APSChecks.alertKeys, APNsChecks.pushTypeNames, CIOChecks.pushKeyNames,
        FCMChecks.requestKeys, FCMChecks.messageKeys, FCMChecks.notificationKeys, FCMChecks.apnsKeys,
        FCMChecks.androidKeys, FCMChecks.webpushKeys, FCMChecks.messageOptionKeys, FCMChecks.apnsOptionKeys,
        ["Mixed-Case", "snake_name", "x", ""],
    ]

    func testEveryTableAnswersAsThePlainDefinition() {
        let keys = ["mutable_content", "MUTABLE-CONTENT", "contentavailable", "alrt", "bdge", "sound", "titel", "loc_args",
                    "", "-", "_", "a", "x", "xx", "imgae", "lnk", "liveactivity", "Background", "voip_", "mixedcase", "snakename",
                    "tokn", "notifcation", "APNS", "ttl_", "analytics-label", "fcmoptions",
                    "\u{212A}", "ima\u{212A}e", "b\u{301}adge", "-\u{301}", "ÉVENT", "évent", "straße", "İmage", "ｉｍａｇｅ",
                    String(repeating: "a", count: 300), String(repeating: "b", count: 40), "thread-id\u{0}", "category\n"]
        for table in tables {
            for key in keys + table.names.map({ $0.uppercased() }) + table.names.map({ String($0.dropLast()) }) {
                XCTAssertEqual(table.closest(to: key), reference(key, table.names), "\(key.debugDescription) in \(table.names)")
            }
        }
        XCTAssertEqual(APSChecks.knownKeys.closest(to: "mutable_content"), "mutable-content")
        XCTAssertEqual(CIOChecks.pushKeyNames.closest(to: "ima\u{212A}e"), "image")  // the Kelvin sign lowercases to "k"
    }

    func testMembershipIsExact() {
        for table in tables {
            for name in table.names { XCTAssertTrue(table.contains(name), name) }
            for name in table.names where !name.isEmpty { XCTAssertFalse(table.contains(name.uppercased() + "_"), name) }
            XCTAssertFalse(table.contains("not-a-known-name"))
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
