import Foundation

/// The armour of a PEM file (RFC 7468): its blocks' labels and decoded bodies. Parsing the
/// armour ourselves (rather than letting OpenSSL guess) is what lets pushlab say *what* it was
/// given: a certificate, an encrypted key, a public key, a truncated file.
struct PEMBlock {
    var label: String
    var der: [UInt8]
    /// RFC 1421 headers such as `Proc-Type: 4,ENCRYPTED` (legacy OpenSSL encrypted keys).
    var isLegacyEncrypted: Bool
}

enum PEMDocument {
    /// Every block in `text`, in order; throws when the armour or a body is broken.
    static func blocks(in bytes: [UInt8], source: String) throws(KeyLoadError) -> [PEMBlock] {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
            throw .empty(source: source)
        }
        var text = String(decoding: bytes, as: UTF8.self)
        // Tolerate what editors and copy-paste do to key files: a UTF-8 byte-order mark, and a
        // key flattened to one line with literal "\n" (a PEM pasted into JSON or an env var).
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        if !text.utf8.contains(0x0A) && text.contains("\\n") { text = text.replacingOccurrences(of: "\\n", with: "\n") }
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
            .map { trimmed($0) }
        var blocks: [PEMBlock] = []
        var index = 0
        while index < lines.count {
            guard let label = armourLabel(lines[index], kind: "BEGIN") else { index += 1; continue }
            var body: [UInt8] = []
            var legacyEncrypted = false
            var ended = false
            index += 1
            while index < lines.count {
                let line = lines[index]
                index += 1
                if let endLabel = armourLabel(line, kind: "END") {
                    guard endLabel == label else {
                        throw .corrupt(source: source, detail: "BEGIN \(label) closed by END \(endLabel)")
                    }
                    ended = true
                    break
                }
                if line.contains(":") {
                    if line.hasPrefix("Proc-Type:") && line.contains("ENCRYPTED") { legacyEncrypted = true }
                    continue
                }
                body.append(contentsOf: line.utf8)
            }
            guard ended else { throw .truncated(source: source) }
            while body.last == UInt8(ascii: "=") { body.removeLast() }
            guard let der = Base64Codec.decode(body, url: false), !der.isEmpty else {
                throw .corrupt(source: source, detail: "the base64 body of '\(label)' does not decode")
            }
            blocks.append(PEMBlock(label: label, der: der, isLegacyEncrypted: legacyEncrypted))
        }
        if blocks.isEmpty {
            // DER starts with a SEQUENCE tag (0x30) and soon holds control bytes text never has.
            let isControl: (UInt8) -> Bool = { $0 < 0x09 || ($0 > 0x0D && $0 < 0x20) }
            if bytes.first == 0x30 && bytes.prefix(64).contains(where: isControl) { throw .binaryDER(source: source) }
            throw .notPEM(source: source)
        }
        return blocks
    }

    private static func armourLabel(_ line: String, kind: String) -> String? {
        let prefix = "-----\(kind) ", suffix = "-----"
        guard line.hasPrefix(prefix), line.hasSuffix(suffix), line.count >= prefix.count + suffix.count else { return nil }
        return String(line.dropFirst(prefix.count).dropLast(suffix.count))
    }

    private static func trimmed(_ line: Substring) -> String {
        var s = line
        while let f = s.first, f == " " || f == "\t" || f == "\r" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" { s = s.dropLast() }
        return String(s)
    }
}
