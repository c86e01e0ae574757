import Foundation
import PushAuth

/// libFuzzer target: the JWT parser and verifier, and the PEM key loaders, on arbitrary bytes.
/// The first byte picks the surface; the rest is the input. Keys come from certs/ (run from the
/// repository root, as scripts/fuzz does). Fuzz/README.md.
let keysDirectory = ProcessInfo.processInfo.environment["PUSHLAB_CERTS"] ?? "certs"
let apnsPublicKey = loadPublicKey("AuthKey_PLDEVKEY01.pub.pem")
let serviceAccountPublicKey = loadPublicKey("fcm-service-account.pub.pem")

func loadPublicKey(_ name: String) -> PublicKey {
    let path = keysDirectory + "/" + name
    guard let bytes = FileManager.default.contents(atPath: path),
          let key = try? PublicKey(pem: Array(bytes), source: path)
    else { fatalError("cannot load \(path): run from the repository root or set PUSHLAB_CERTS") }
    return key
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJWT(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let selector = data[0]
    let input = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    switch selector % 4 {
    case 0, 1:
        // A token as it arrives in an `authorization: bearer …` header or an OAuth assertion.
        let token = String(decoding: input, as: UTF8.self)
        guard let jwt = try? JWT.parse(token) else { return 0 }
        _ = try? jwt.verify(with: apnsPublicKey, algorithm: .es256)
        _ = try? jwt.verify(with: serviceAccountPublicKey, algorithm: .rs256)
        _ = try? jwt.verify(with: apnsPublicKey)
        _ = try? jwt.verify(with: serviceAccountPublicKey)
    case 2:
        _ = try? PublicKey(pem: input, source: "fuzz")
    default:
        _ = try? PrivateKey(pem: input, source: "fuzz")
        _ = try? ServiceAccount.parse(input, source: "fuzz")
    }
    return 0
}
