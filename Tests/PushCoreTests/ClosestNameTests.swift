@testable import PushCore
import XCTest

/// `closestName` (the validator's "did you mean") normalises each name once, ASCII by a byte loop;
/// its answers must be those of the plain definition: lowercase, drop '-' and '_', the first
/// equal name, else the nearest within edit distance 2 (first of equals).
final class ClosestNameTests: XCTestCase {
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

    func testSameAnswersAsThePlainDefinition() {
        let lists = [APSChecks.knownKeys, APSChecks.alertKeys, APNsPushType.allCases.map(\.rawValue), ["image", "link"],
                     ["Mixed-Case", "snake_name", "x", ""]]
        let keys = ["mutable_content", "MUTABLE-CONTENT", "contentavailable", "alrt", "bdge", "sound", "titel", "loc_args",
                    "", "-", "_", "a", "imgae", "lnk", "liveactivity", "Background", "voip_", "mixedcase", "snakename", "xx",
                    "\u{212A}", "ima\u{212A}e", "b\u{301}adge", "-\u{301}", "ÉVENT", "évent", "straße", "İmage", "ｉｍａｇｅ",
                    String(repeating: "a", count: 300), "thread-id\u{0}", "category\n"]
        for names in lists {
            for key in keys {
                XCTAssertEqual(closestName(to: key, in: names), reference(key, names), "\(key.debugDescription) in \(names)")
            }
        }
        XCTAssertEqual(closestName(to: "mutable_content", in: APSChecks.knownKeys), "mutable-content")
        XCTAssertEqual(closestName(to: "ima\u{212A}e", in: ["image", "link"]), "image")  // the Kelvin sign lowercases to "k"
    }
}
