// Measures PushAuth's JWT work for benchmarks/auth.sh: ES256 provider-token minting, ES256
// parse+verify (what the gateway does per request), RS256 assertion sign/verify, each as
// operations per second on one thread, and ES256 verify on N threads sharing one key object.
import Foundation
import PushAuth
import Synchronization

func argument(_ name: String, default value: String) -> String {
    let args = CommandLine.arguments
    if let i = args.firstIndex(of: name), i + 1 < args.count { return args[i + 1] }
    return value
}

let seconds = Double(argument("--seconds", default: "2")) ?? 2
let threads = Int(argument("--threads", default: "2")) ?? 2
let apnsKeyPath = argument("--apns-key", default: "certs/AuthKey_PLDEVKEY01.p8")
let serviceAccountPath = argument("--service-account", default: "certs/fcm-service-account.json")

/// Runs `body` in batches until `seconds` pass; returns operations per second.
func rate(_ body: (Int) throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    var done = 0
    while true {
        for i in 0..<200 { try body(done + i) }
        done += 200
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        if elapsed >= seconds { return Double(done) / elapsed }
    }
}

do {
    let apns = try APNsAuthKey.load(path: apnsKeyPath, teamID: "PLDEVTEAM1")
    let apnsPublic = apns.privateKey.publicKey
    let account = try ServiceAccount.load(path: serviceAccountPath)
    let rsaPublic = account.privateKey.publicKey

    let tokens = try (0..<1000).map { try apns.providerToken(issuedAt: Date(timeIntervalSince1970: 1_767_225_600 + Double($0))) }
    let es256Sign = try rate { i in _ = try apns.providerToken(issuedAt: Date(timeIntervalSince1970: Double(i))) }
    let es256Parse = try rate { i in _ = try JWT.parse(tokens[i % tokens.count]) }
    let es256Verify = try rate { i in _ = try JWT.verify(tokens[i % tokens.count], with: apnsPublic, algorithm: .es256) }

    let rsaClaims = JWTClaims(iss: account.clientEmail, aud: [account.tokenURI], scope: OAuthTokenSource.firebaseMessagingScope)
    let rsaHeader = JWTHeader(alg: .rs256, kid: account.privateKeyID, typ: "JWT")
    let rsaToken = try JWT.sign(header: rsaHeader, claims: rsaClaims, key: account.privateKey)
    let rs256Sign = try rate { i in
        var claims = rsaClaims
        claims.iat = Int64(i)
        _ = try JWT.sign(header: rsaHeader, claims: claims, key: account.privateKey)
    }
    let rs256Verify = try rate { _ in _ = try JWT.verify(rsaToken, with: rsaPublic, algorithm: .rs256) }

    // N threads verifying with the same PublicKey (the gateway shares one per key id).
    let total = Atomic<Int>(0)
    let group = DispatchGroup()
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<threads {
        DispatchQueue.global().async(group: group) {
            var n = 0
            let deadline = start + UInt64(seconds * 1e9)
            while DispatchTime.now().uptimeNanoseconds < deadline {
                for i in 0..<100 { _ = try! JWT.verify(tokens[(n + i) % tokens.count], with: apnsPublic, algorithm: .es256) }
                n += 100
            }
            total.add(n, ordering: .relaxed)
        }
    }
    group.wait()
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    let parallel = Double(total.load(ordering: .relaxed)) / elapsed

    func line(_ name: String, _ value: Double) { print("\(name) \(Int(value.rounded()))") }
    line("es256_sign_per_s", es256Sign)
    line("es256_parse_per_s", es256Parse)
    line("es256_parse_verify_per_s", es256Verify)
    line("es256_parse_verify_\(threads)_threads_per_s", parallel)
    line("rs256_sign_per_s", rs256Sign)
    line("rs256_parse_verify_per_s", rs256Verify)
} catch {
    FileHandle.standardError.write(Data("pushlab-bench-auth: \(error)\n".utf8))
    exit(2)
}
