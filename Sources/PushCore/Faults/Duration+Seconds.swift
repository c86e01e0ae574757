import Foundation

extension Duration {
    /// Seconds as a Double.
    public var seconds: Double {
        let c = components
        return Double(c.seconds) + Double(c.attoseconds) * 1e-18
    }

    /// The shortest exact text among `250ms`, `2s`, `1.5s` (for plans written back out).
    public var compactText: String {
        let ms = seconds * 1000
        if ms.rounded() == ms, ms.truncatingRemainder(dividingBy: 1000) != 0 || ms == 0 { return "\(Int(ms))ms" }
        let s = seconds
        if s.rounded() == s { return "\(Int(s))s" }
        return "\(s)s"
    }
}
