import Foundation

/// The names a key may take at one place of a payload (the `aps` keys, the alert keys, an FCM
/// object's fields), each normalised for matching once, where the table is made: a "did you
/// mean" hint compares a misspelt key with every name, and normalising each name on each call
/// cost more than the comparisons.
struct KnownNames: Sendable, ExpressibleByArrayLiteral {
    let names: [String]
    /// `nameForMatching` of each name, in the same order.
    private let matching: [[UInt8]]

    init(_ names: [String]) {
        self.names = names
        matching = names.map(nameForMatching)
    }
    init(arrayLiteral names: String...) { self.init(names) }

    func contains(_ name: String) -> Bool { names.contains(name) }

    /// A close known name for a misspelt key (`mutable_content` → `mutable-content`): the first
    /// name equal to the key but for case, '-' and '_'; else the nearest within edit distance 2
    /// (the first of equally near ones); else nil.
    func closest(to key: String) -> String? {
        let k = nameForMatching(key)
        var best: (index: Int, distance: Int)?
        for (index, m) in matching.enumerated() {
            if m == k { return names[index] }
            // The distance is at least the difference in length: a key more than 2 bytes longer or
            // shorter than a name cannot be within 2 of it (and a long key would cost length x name).
            guard abs(k.count - m.count) <= 2 else { continue }
            let d = editDistance(k, m, limit: 2)
            if d <= 2, d < (best?.distance ?? Int.max) { best = (index, d) }
        }
        return best.map { names[$0.index] }
    }
}

/// The UTF-8 bytes `KnownNames.closest` compares: lowercased, without '-' and '_'. ASCII text
/// takes a byte loop; anything else goes through `lowercased()` (which can change the length,
/// e.g. the Kelvin sign becomes "k") and filters characters.
func nameForMatching(_ s: String) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(s.utf8.count)
    for b in s.utf8 {
        if b >= 0x80 { return Array(s.lowercased().filter { $0 != "-" && $0 != "_" }.utf8) }
        if b == UInt8(ascii: "-") || b == UInt8(ascii: "_") { continue }
        out.append(b >= 0x41 && b <= 0x5A ? b | 0x20 : b)
    }
    return out
}

func editDistance(_ a: String, _ b: String) -> Int { editDistance(Array(a.utf8), Array(b.utf8)) }

/// Levenshtein distance of two byte strings. With a `limit`, a distance above it may be given as
/// any number above it: the rows' least entry never falls, so once it passes the limit the
/// rest is not computed.
func editDistance(_ a: [UInt8], _ b: [UInt8], limit: Int = .max) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    return withUnsafeTemporaryAllocation(of: Int.self, capacity: b.count + 1) { row in
        for j in 0...b.count { row[j] = j }
        for i in 1...a.count {
            var prev = row[0]
            row[0] = i
            var least = i
            for j in 1...b.count {
                let cur = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] == b[j - 1] ? 0 : 1))
                least = min(least, row[j])
                prev = cur
            }
            if least > limit { return least }
        }
        return row[b.count]
    }
}
