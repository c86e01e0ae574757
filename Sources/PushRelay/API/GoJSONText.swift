import PushCore

/// A JSON value written as Go's encoding/json writes a value it decoded into `any`: gorush turns
/// each non-string `data` value of an FCM notification into such a string
/// (notify/notification_fcm.go `convertDataToStringMap`), and the app reads that string, so the
/// relay writes the same bytes: object keys sorted, numbers as float64 (`1.0` → `1`,
/// `1e-7`, `1e+21`), `<`, `>`, `&`, U+2028 and U+2029 escaped.
enum GoJSONText {
    static func encode(_ value: JSONValue) -> String {
        var out = ""
        write(value, to: &out)
        return out
    }

    private static func write(_ value: JSONValue, to out: inout String) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += number(n.doubleValue)
        case .string(let s): quote(s, to: &out)
        case .array(let a):
            out += "["
            for (i, e) in a.elements.enumerated() {
                if i > 0 { out += "," }
                write(e, to: &out)
            }
            out += "]"
        case .object(let o):
            // A Go map: one value per key (the last one), keys in byte order.
            var last: [String: JSONValue] = [:]
            for m in o.members { last[m.key] = m.value }
            out += "{"
            for (i, key) in last.keys.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }).enumerated() {
                if i > 0 { out += "," }
                quote(key, to: &out)
                out += ":"
                write(last[key]!, to: &out)
            }
            out += "}"
        }
    }

    private static func quote(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "<", ">", "&", "\u{2028}", "\u{2029}":
                out += "\\u" + hex4(scalar.value)
            default:
                if scalar.value < 0x20 { out += "\\u" + hex4(scalar.value) } else { out.unicodeScalars.append(scalar) }
            }
        }
        out += "\""
    }

    private static func hex4(_ v: UInt32) -> String {
        let h = String(v, radix: 16)
        return String(repeating: "0", count: max(0, 4 - h.count)) + h
    }

    /// Go's `strconv.AppendFloat(f, 'f' or 'e', -1, 64)` as encoding/json picks it: the shortest
    /// digits that read back as the same double, positional unless |f| < 1e-6 or ≥ 1e21.
    static func number(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        if d == 0 { return d.sign == .minus ? "-0" : "0" }
        // Swift's description is also the shortest round-trip form; take its digits and exponent.
        let text = "\(abs(d))"
        var mantissa = text, exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            mantissa = String(text[..<e])
            exponent = Int(text[text.index(after: e)...]) ?? 0
        }
        let parts = mantissa.split(separator: ".", omittingEmptySubsequences: false)
        var digits = String(parts[0]) + (parts.count > 1 ? String(parts[1]) : "")
        var pointAt = parts[0].count + exponent  // the decimal point sits after this many digits
        while digits.hasPrefix("0") && digits.count > 1 { digits.removeFirst(); pointAt -= 1 }
        while digits.hasSuffix("0") && digits.count > 1 { digits.removeLast() }
        let sign = d < 0 ? "-" : ""
        let magnitude = abs(d)
        if magnitude < 1e-6 || magnitude >= 1e21 {
            let first = digits.prefix(1), rest = digits.dropFirst()
            let e = pointAt - 1
            return sign + first + (rest.isEmpty ? "" : "." + rest) + "e" + (e < 0 ? "-" : "+") + String(abs(e))
        }
        if pointAt <= 0 { return sign + "0." + String(repeating: "0", count: -pointAt) + digits }
        if pointAt >= digits.count { return sign + digits + String(repeating: "0", count: pointAt - digits.count) }
        let i = digits.index(digits.startIndex, offsetBy: pointAt)
        return sign + digits[..<i] + "." + digits[i...]
    }
}
