import CPushLab
import Foundation
import PushCore

/// ECDSA signatures in their two encodings: OpenSSL's DER `ECDSA-Sig-Value` and JOSE's raw
/// fixed-width `r‖s` (RFC 7518 §3.4: 32 + 32 bytes for P-256).
public enum ECDSASignature {
    public static let p256Width = 32

    public static func rawFromDER(_ der: [UInt8], width: Int = p256Width) -> [UInt8]? {
        var raw = [UInt8](repeating: 0, count: 2 * width)
        let ok = der.withUnsafeBufferPointer { cpl_ecdsa_der_to_raw($0.baseAddress, $0.count, &raw, width) }
        return ok == 1 ? raw : nil
    }

    public static func derFromRaw(_ raw: [UInt8]) -> [UInt8]? {
        guard raw.count % 2 == 0, !raw.isEmpty else { return nil }
        var der = [UInt8](repeating: 0, count: raw.count + 16)
        var length = der.count
        let ok = raw.withUnsafeBufferPointer { cpl_ecdsa_raw_to_der($0.baseAddress, raw.count / 2, &der, &length) }
        guard ok == 1 else { return nil }
        der.removeSubrange(length...)
        return der
    }
}
