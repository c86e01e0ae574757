extension Duration {
    /// The duration in (fractional) seconds.
    var inSeconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) / 1e18
    }
    var inMilliseconds: Double { inSeconds * 1000 }
}
