extension Duration {
    /// Whole milliseconds, rounded up so a tiny positive timeout never becomes "no timeout".
    var roundedUpMilliseconds: Int {
        let (seconds, attoseconds) = components
        let ms = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int(max(ms, 0))
    }
}
