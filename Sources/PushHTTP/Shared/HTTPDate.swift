import Foundation

/// The HTTP `Date` field's format, IMF-fixdate (RFC 9110 §5.6.7): `Sun, 06 Nov 1994 08:49:37 GMT`.
/// The emulator sends it where a client reads the clock (`pushlab doctor --online`); the doctor
/// parses it.
public enum HTTPDate {
    public static func string(_ date: Date = Date()) -> String { formatter().string(from: date) }

    public static func parse(_ text: String) -> Date? { formatter().date(from: text) }

    private static func formatter() -> DateFormatter {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "GMT")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return f
    }
}
