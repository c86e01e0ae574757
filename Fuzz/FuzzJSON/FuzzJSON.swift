import PushCore

/// libFuzzer target: the lossless JSON parser and the payload validator on arbitrary bytes.
/// Built only by scripts/fuzz (`PUSHLAB_FUZZ=1 swift build --sanitize=fuzzer`); Fuzz/README.md.
/// Any byte string must give a document or a `JSONParseError`, and every document must
/// validate in each format and round-trip through the serializer without trapping.
/// The bytes are parsed once and the document validated in each format (`validate(_:as:)`, what
/// `validate(bytes:as:)` does after its own parse); an input that does not parse goes through
/// `validate(bytes:as:)` as APNs (the default) and FCM, whose parse findings differ.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let validator = Validator(options: ValidationOptions(maxInputBytes: 1 << 20, maxDepth: 512))
    let document: JSONDocument
    do {
        document = try JSONDocument.parse(bytes)
    } catch {
        for format in [nil, PayloadFormat.fcm] {
            guard validator.validate(bytes: bytes, as: format).unparsable else {
                fatalError("the validator parsed bytes the parser refused (\(error))")
            }
        }
        return 0
    }
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
