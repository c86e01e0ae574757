import Foundation
@testable import PushDevice

/// libFuzzer target: the App Group pending-metrics file parser (docs/specs/device-side.md §4):
/// `CIOPendingMetricFile.decode` (the reference rule: the whole file or nothing) and
/// `intactRows` (pushlab's reading of a damaged file). Two checks per input:
///
/// 1. The input as a file: neither parser traps; where the direct reading of the store's form
///    (`canonicalDecode`) reads it, JSONDecoder reads the same rows; if it decodes, writing its rows and reading
///    them back gives the same rows (timestamps are whole seconds in the file).
/// 2. The input as a recipe (`AppGroupFileCase`): rows made from its bytes are written as the
///    store writes them, the file is truncated, overwritten or spliced with garbage, and every row
///    the damage did not touch must come back from `intactRows`, in order.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAppGroupFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    checkFile(bytes)
    checkDamage(AppGroupFileCase(bytes))
    return 0
}

func checkFile(_ bytes: [UInt8]) {
    // The direct reading of the store's own form must agree with JSONDecoder's wherever it
    // reads a file (it gives up, and JSONDecoder reads, on anything else).
    if let direct = CIOPendingMetricFile.canonicalDecode(bytes), CIOPendingMetricFile.foundationDecode(bytes) != direct {
        fatalError("canonicalDecode and JSONDecoder read different rows: \(String(decoding: bytes.prefix(300), as: UTF8.self).debugDescription)")
    }
    let salvaged = CIOPendingMetricFile.intactRows(bytes)
    guard let rows = CIOPendingMetricFile.decode(bytes) else { return }
    guard salvaged == rows else { fatalError("intactRows differs from decode on a file that decodes") }
    let written = CIOPendingMetricFile.encode(rows)
    guard let reread = CIOPendingMetricFile.decode(written) else {
        fatalError("the store cannot read back the file it wrote: \(String(decoding: written.prefix(300), as: UTF8.self).debugDescription)")
    }
    guard reread == rows.map(AppGroupFileCase.wholeSeconds) else {
        fatalError("rows changed in a write/read round trip:\n\(rows)\n\(reread)")
    }
}

func checkDamage(_ recipe: AppGroupFileCase) {
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
