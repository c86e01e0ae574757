import Foundation
@testable import PushDevice

/// libFuzzer target: the App Group pending-metrics file parser (docs/specs/device-side.md §4):
/// `CIOPendingMetricFile.decode` (the reference rule: the whole file or nothing) and
/// `intactRows` (pushlab's reading of a damaged file). Two checks per input:
///
/// 1. The input as a file: neither parser traps; where the direct reading of the store's form
///    (`canonicalDecode`) reads it, JSONDecoder reads the same rows; if it decodes, writing its rows and reading
///    them back gives the same rows (timestamps are whole seconds in the file); if it does not,
///    its intact rows (`salvagedRows`) are read, and on some inputs also with every candidate row
///    through JSONDecoder, which must give the same rows (`checksDecoder` below).
/// 2. The input as a recipe (`AppGroupFileCase`): rows made from its bytes are written as the
///    store writes them, the file is truncated, overwritten or spliced with garbage, and every row
///    the damage did not touch must come back from `intactRows`, in order (and on the inputs of
///    `checksDecoder`, the same rows with every candidate through JSONDecoder).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAppGroupFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let comparesDecoder = checksDecoder(bytes)
    checkFile(bytes, comparesDecoder: comparesDecoder)
    checkDamage(AppGroupFileCase(bytes), comparesDecoder: comparesDecoder)
    return 0
}

/// `salvagedRows` decides most candidate rows itself (`readCandidate`) and leaves the rest to
/// JSONDecoder; an input whose hash is a multiple of `decoderOneIn` (a property of the bytes, so
/// a finding replays from its file) is also read with every candidate through JSONDecoder (the
/// reading before `readCandidate`; `decodeRow`'s answers are remembered by the candidate's bytes,
/// `decodeRowRemembered`), and both must give the same rows. Checking every input would
/// cost what `readCandidate` saves. `FUZZ_CHECK_DECODER=1` checks every input (`-runs=0 <dirs>`
/// checks a corpus; scripts/fuzz's sanitizer pass does so over the kept corpus).
let checksEveryInput = ProcessInfo.processInfo.environment["FUZZ_CHECK_DECODER"] == "1"
let decoderOneIn: UInt64 = 16

func checksDecoder(_ input: [UInt8]) -> Bool {
    if checksEveryInput { return true }
    // FNV-1a of the length and at most 32 bytes from each end (the loop's comparisons are
    // traced by the coverage instrumentation, so not over all of a long input).
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(input.count)
    for byte in input.prefix(32) + input.suffix(32) { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    return hash % decoderOneIn == 0
}

/// `decodeRow`'s answers by the candidate object's bytes, for the comparison with the
/// `JSONDecoder`-only reading: `decodeRow` depends on nothing but those bytes, so a remembered
/// answer is the one it would give again (a finding still replays from its own file, which
/// starts with an empty table), and most candidate rows of an input are those of the corpus
/// input libFuzzer mutated. Bounded: emptied when its keys reach `rememberedMaximum` bytes. Only where no
/// leak check runs per input (no LeakSanitizer in the process, as in the coverage-only build, or
/// `-detect_leaks=0`): the table grows during an input, and libFuzzer re-runs every input that
/// allocates more than it frees under LeakSanitizer. Not with `FUZZ_CHECK_DECODER=1`, which
/// reads every candidate of every input afresh.
nonisolated(unsafe) var rememberedRows: [CandidateBytes: PendingDeliveryMetric?] = [:]
nonisolated(unsafe) var rememberedBytes = 0
let rememberedMaximum = 32 << 20
let remembersRows = !checksEveryInput
    && (dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__lsan_do_recoverable_leak_check") == nil
        || CommandLine.arguments.contains("-detect_leaks=0"))

func decodeRowRemembered(_ object: [UInt8]) -> PendingDeliveryMetric? {
    guard remembersRows else { return CIOPendingMetricFile.decodeRow(object) }
    let key = CandidateBytes(bytes: object)
    if let known = rememberedRows[key] { return known }
    let row = CIOPendingMetricFile.decodeRow(object)
    if rememberedBytes >= rememberedMaximum {
        rememberedRows.removeAll(keepingCapacity: true)
        rememberedBytes = 0
    }
    rememberedRows[key] = row
    rememberedBytes += object.count
    return row
}

/// A candidate object's bytes as a table key, hashed and compared whole (`memcmp`): the array's
/// own `==` and `hash(into:)`, specialized into this instrumented module, traced a comparison
/// per byte.
struct CandidateBytes: Hashable {
    let bytes: [UInt8]

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    static func == (a: CandidateBytes, b: CandidateBytes) -> Bool {
        guard a.bytes.count == b.bytes.count else { return false }
        guard !a.bytes.isEmpty else { return true }
        return a.bytes.withUnsafeBytes { x in b.bytes.withUnsafeBytes { y in memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 } }
    }
}

/// The salvage with every candidate through `flatObjectEnd` and `decodeRow` (`JSONDecoder`).
func salvagedByDecoder(_ bytes: [UInt8]) -> [PendingDeliveryMetric] {
    CIOPendingMetricFile.salvagedRows(bytes, decoderOnly: true, decodingRow: decodeRowRemembered)
}

func checkFile(_ bytes: [UInt8], comparesDecoder: Bool) {
    // `decode` is `canonicalDecode ?? foundationDecode`, and `intactRows` is `decode ?? salvagedRows`:
    // each is read once here. The direct reading of the store's own form must agree with
    // JSONDecoder's wherever it reads a file (it gives up, and JSONDecoder reads, on anything else).
    let direct = CIOPendingMetricFile.canonicalDecode(bytes)
    let foundation = CIOPendingMetricFile.foundationDecode(bytes)
    if let direct, foundation != direct {
        fatalError("canonicalDecode and JSONDecoder read different rows: \(String(decoding: bytes.prefix(300), as: UTF8.self).debugDescription)")
    }
    guard let rows = direct ?? foundation else {
        let salvaged = CIOPendingMetricFile.salvagedRows(bytes)
        if comparesDecoder, salvaged != salvagedByDecoder(bytes) {
            fatalError("""
                readCandidate and JSONDecoder salvage different rows: \(String(decoding: bytes.prefix(600), as: UTF8.self).debugDescription)
                with readCandidate: \(salvaged)
                JSONDecoder only: \(CIOPendingMetricFile.salvagedRows(bytes, decoderOnly: true))
                """)
        }
        return
    }
    let written = CIOPendingMetricFile.encode(rows)
    guard let reread = CIOPendingMetricFile.decode(written) else {
        fatalError("the store cannot read back the file it wrote: \(String(decoding: written.prefix(300), as: UTF8.self).debugDescription)")
    }
    guard reread == rows.map(AppGroupFileCase.wholeSeconds) else {
        fatalError("rows changed in a write/read round trip:\n\(rows)\n\(reread)")
    }
}

func checkDamage(_ recipe: AppGroupFileCase, comparesDecoder: Bool) {
    let encoded = recipe.rows.map(CIOPendingMetricFile.encodeRow)
    let file = CIOPendingMetricFile.join(encoded)
    let expected = recipe.rows.map(AppGroupFileCase.wholeSeconds)
    guard CIOPendingMetricFile.decode(file) == expected else {
        fatalError("a file the store wrote does not read back: \(String(decoding: file.prefix(300), as: UTF8.self).debugDescription)")
    }
    // Byte range of each row in the file: `[` then rows joined by `,`.
    var spans: [Range<Int>] = []
    var offset = 1
    for row in encoded {
        spans.append(offset..<(offset + row.count))
        offset += row.count + 1
    }
    let (damaged, touched) = recipe.damage.apply(to: file)
    let intact = zip(expected, spans).filter { !touched($0.1) }.map(\.0)
    let recovered = CIOPendingMetricFile.intactRows(damaged)
    if comparesDecoder, recovered != CIOPendingMetricFile.decode(damaged) ?? salvagedByDecoder(damaged) {
        fatalError("readCandidate and JSONDecoder salvage different rows: \(String(decoding: damaged.prefix(600), as: UTF8.self).debugDescription)")
    }
    // `intact` must be a subsequence of `recovered` (damage may add rows of its own).
    var next = recovered.makeIterator()
    for row in intact {
        var found = false
        while let candidate = next.next() { if candidate == row { found = true; break } }
        guard found else {
            fatalError("an intact row was lost: \(row)\nfile: \(String(decoding: damaged.prefix(600), as: UTF8.self).debugDescription)\nrecovered: \(recovered)")
        }
    }
}
