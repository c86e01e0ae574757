import PushCore

public extension SeededRandom {
    /// One seeded edit of `bytes` (not empty) at a random place: a byte of `alphabet` written over
    /// the byte there, inserted before it, or that byte removed. The mutation tests of the JSON
    /// readers (`JSONObjectSkimmerTests`, `FCMOnePassTests`, `CIOPendingMetricCandidateTests`)
    /// make their inputs with it.
    mutating func edit(_ bytes: inout [UInt8], from alphabet: [UInt8]) {
        let at = Int(next() % UInt64(bytes.count))
        let byte = alphabet[Int(next() % UInt64(alphabet.count))]
        switch next() % 3 {
        case 0: bytes[at] = byte
        case 1: bytes.insert(byte, at: at)
        default: bytes.remove(at: at)
        }
    }

    /// `count` inputs for a mutation test: the seeds in turn, each with one or two `edit`s.
    mutating func editedCopies(of seeds: [[UInt8]], count: Int, from alphabet: [UInt8]) -> [[UInt8]] {
        (0..<count).map { round in
            var bytes = seeds[round % seeds.count]
            for _ in 0..<(1 + Int(next() % 2)) { edit(&bytes, from: alphabet) }
            return bytes
        }
    }
}
