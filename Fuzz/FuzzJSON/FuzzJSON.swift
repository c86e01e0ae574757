import PushCore

/// libFuzzer target: the lossless JSON parser and the payload validator on arbitrary bytes.
/// Built only by scripts/fuzz (`PUSHLAB_FUZZ=1 swift build --sanitize=fuzzer`); Fuzz/README.md.
/// Any byte string must give a document or a `JSONParseError`, and every document must
/// validate in each format and round-trip through the serializer without trapping.
/// The bytes are parsed once and the document validated in each format (`validate(_:as:)`, what
/// `validate(bytes:as:)` does after its own parse); an input that does not parse goes through
/// `validate(bytes:as:)` as APNs (the default) and FCM, whose parse findings differ.
/// `JSONIndex` (the metrics collector's one-pass reading of a body) must refuse exactly what the
/// parser refuses and list exactly the parser's values, every object cut down to `indexNames`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let validator = Validator(options: ValidationOptions(maxInputBytes: 1 << 20, maxDepth: 512))
    let document: JSONDocument
    let index = JSONIndex(bytes, keepingMembersNamed: indexNames)
    do {
        document = try JSONDocument.parse(bytes)
    } catch {
        if index != nil { fatalError("JSONIndex listed bytes the parser refused (\(error))") }
        for format in [nil, PayloadFormat.fcm] {
            guard validator.validate(bytes: bytes, as: format).unparsable else {
                fatalError("the validator parsed bytes the parser refused (\(error))")
            }
        }
        return 0
    }
    guard let index else { fatalError("JSONIndex refused a document the parser read") }
    if index.root.listedValue != document.root.keepingMembers(named: indexNames) { fatalError("JSONIndex listed other values than the parser's") }
    for format in [nil, PayloadFormat.apns, .fcm, .simulator] {
        _ = validator.validate(document, as: format)
    }
    // The minified form must parse back to an equal value (lossless parser).
    let minified = document.minifiedBytes()
    guard let again = try? JSONDocument.parse(minified) else {
        fatalError("minified output does not parse: \(String(decoding: minified.prefix(200), as: UTF8.self))")
    }
    if again.root != document.root { fatalError("minify round trip changed the value") }
    _ = document.root.prettyPrinted()
    return 0
}

/// Keys the index lists: the metrics collector's (its `/v1/track`, `/v1/b` and legacy bodies,
/// seeds in Fuzz/seeds/FuzzJSON), some APNs and FCM keys of the payload seeds, and short ones a
/// mutation makes easily.
private let indexNames: JSONMemberNames = [
    "type", "event", "properties", "anonymousId", "userId", "timestamp", "metric", "deliveryId", "recipient",
    "batch", "writeKey", "delivery_id", "device_id", "aps", "alert", "title", "CIO", "push", "message", "data",
    "a", "b", "", "\u{e9}",
]
