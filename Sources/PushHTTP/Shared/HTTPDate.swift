import Foundation

/// The HTTP `Date` field's format, IMF-fixdate (RFC 9110 §5.6.7): `Sun, 06 Nov 1994 08:49:37 GMT`.
/// The emulator sends it where a client reads the clock (`pushlab doctor --online`); the doctor
/// parses it.
public enum HTTPDate {
    /// Written by hand for years 1970–9999 (the emulator adds it to every unknown-path answer: a
    /// `DateFormatter` per call, ICU's formatter set-up included, was 17% of the FuzzServerRequests
    /// fuzz target); other dates through `DateFormatter`, whose text it equals.
    public static func string(_ date: Date = Date()) -> String {
        // DateFormatter (ICU) reads the date in whole milliseconds, rounded: 08:05:17.9999986
        // is 08:05:18.000, so it writes :18.
        let seconds = ((date.timeIntervalSince1970 * 1000).rounded() / 1000).rounded(.down)
        guard seconds >= 0, seconds < 253_402_300_800 else { return formatter().string(from: date) }  // 10000-01-01
        var t = time_t(seconds)
        var tm = tm()
        gmtime_r(&t, &tm)
        var out: [UInt8] = []
        out.reserveCapacity(29)
        func two(_ v: Int32) { out.append(UInt8(48 + v / 10)); out.append(UInt8(48 + v % 10)) }
        out.append(contentsOf: weekdays[Int(tm.tm_wday)].utf8)
        out.append(contentsOf: ", ".utf8)
        two(tm.tm_mday)
        out.append(UInt8(ascii: " "))
        out.append(contentsOf: months[Int(tm.tm_mon)].utf8)
        out.append(UInt8(ascii: " "))
        let year = tm.tm_year + 1900
        two(year / 100)
        two(year % 100)
        out.append(UInt8(ascii: " "))
        two(tm.tm_hour); out.append(UInt8(ascii: ":"))
        two(tm.tm_min); out.append(UInt8(ascii: ":"))
        two(tm.tm_sec)
        out.append(contentsOf: " GMT".utf8)
        return String(decoding: out, as: UTF8.self)
    }

    public static func parse(_ text: String) -> Date? { formatter().date(from: text) }

    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func formatter() -> DateFormatter {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "GMT")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return f
    }
}
