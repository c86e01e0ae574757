import CPushLab

/// SHA-256 and HMAC-SHA256 over bytes (OpenSSL's one-shot functions), for API-key hashes,
/// request fingerprints and webhook signatures.
public enum Digest {
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                _ = SHA256(input.baseAddress, input.count, output.baseAddress)
            }
        }
        return out
    }

    public static func sha256(_ text: String) -> [UInt8] { sha256(Array(text.utf8)) }

    public static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 32
        key.withUnsafeBufferPointer { k in
            message.withUnsafeBufferPointer { m in
                out.withUnsafeMutableBufferPointer { o in
                    _ = HMAC(EVP_sha256(), k.baseAddress, Int32(k.count), m.baseAddress, m.count, o.baseAddress, &length)
                }
            }
        }
        return out
    }

    /// Lowercase hex, as signatures and fingerprints are written.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
