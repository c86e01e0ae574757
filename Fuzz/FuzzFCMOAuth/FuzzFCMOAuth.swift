import Foundation
import FuzzGatewaySupport
import FuzzSupport
@testable import PushAuth
import PushCore
import PushHTTP
@testable import PushGateway

/// libFuzzer target: the Google host's OAuth token endpoint and FCM v1 send route
/// (docs/specs/fcm.md), answered in memory by one gateway per process, reset after each input
/// (`InMemoryServer.reset`; `FUZZ_CHECK_FRESH=1` also answers each input on a new one and compares).
/// The first byte picks what the rest is:
///
///     0  the form body of `POST /token` (`@ASSERTION@` becomes the harness's valid assertion)
///     1  the claims JSON of an assertion the harness signs with the development service
///        account, sent as a jwt-bearer grant (reaches the iss/aud/scope/iat/exp checks)
///     2  the JSON body of `POST /v1/projects/pushlab-dev/messages:send` with a valid token
///     3  a whole request on the Google host in `FuzzRequest`'s text form (`@FCM_TOKEN@` in a
///        header becomes a valid access token)
///
/// Checks beyond "no trap": `/token` answers 200 with a Bearer token that authenticates an FCM
/// send, or 400 with an OAuth error code (RFC 6749 §5.2); FCM answers are JSON, a 200 names the
/// message `projects/<project>/messages/<id>` and an error carries `error.code` equal to the
/// HTTP status and an `error.status`; the form parser's output survives a re-encoding.
let fixture: InMemoryServer.Fixture = {
    InlineGlobalExecutor.install()
    do {
        let fixture = try InMemoryServer.Fixture(certs: ProcessInfo.processInfo.environment["PUSHLAB_CERTS"] ?? "certs")
        try fixture.checkGrant()
        // From here on the gateway trusts the development account (same email, project and key
        // id) with `signingKey`'s public half instead of its 2048-bit key.
        let account = try ServiceAccount.load(path: fixture.certs + "/fcm-service-account.json")
        fixture.keys.trustServiceAccount(TrustedServiceAccount(clientEmail: account.clientEmail, projectID: account.projectID,
                                                               keyID: account.privateKeyID, publicKey: signingKey.publicKey))
        return fixture
    } catch {
        fatalError("cannot load the development keys: \(error); run from the repository root")
    }
}()

/// What the harness signs with: an RSA key made once per process (1,024 bits). The claims mode
/// signs an assertion per input, and a 2,048-bit RS256 signature took about 250 microseconds,
/// 18% of the target's time; every signature is still verified by the gateway (RS256, the
/// account's key id, then iss/aud/scope/iat/exp), only over a smaller modulus. The form mode's
/// valid assertion is the fixture's grant signed again with it, once.
let signingKey = PrivateKey.generateRSA(bits: 1024)

let serviceAccount: ServiceAccount = {
    do { return try ServiceAccount.load(path: fixture.certs + "/fcm-service-account.json") } catch {
        fatalError("cannot load certs/fcm-service-account.json: \(error)")
    }
}()

/// The encoded RS256 header of the claims mode's assertions, and its dot.
let signedHeader = Base64URL.encode(JWTJSON.encode(JWTHeader(alg: .rs256, kid: serviceAccount.privateKeyID, typ: "JWT"))) + "."

/// `input` (header.claims) with its RS256 signature by `signingKey`.
func signed(_ input: String) -> String {
    guard let signature = signingKey.key.sign(Array(input.utf8)) else { fatalError("RS256 signing failed") }
    return input + "." + Base64URL.encode(signature)
}

/// The form mode's `@ASSERTION@`: the fixture's grant (claims for the development account, an
/// hour long) signed with `signingKey`; checked once to get a token from `/token`.
let assertion: String = {
    let grant = String(decoding: fixture.oauthGrant.split(separator: UInt8(ascii: "=")).last ?? [], as: UTF8.self)
    let assertion = signed(grant.split(separator: ".").prefix(2).joined(separator: "."))
    let form = Array("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)".utf8)
    let reply = googleServer.respond(FuzzRequest(method: "POST", target: "/token", headers: [], body: form), connection: googleServer.makeConnection())
    guard reply.status == 200 else { fatalError("/token refused the harness's assertion: \(reply.status) \(String(decoding: reply.body, as: UTF8.self))") }
    googleServer.finish()
    googleServer.reset()
    return assertion
}()
let assertionMarker = Array("@ASSERTION@".utf8)
let sendPath = "/v1/projects/pushlab-dev/messages:send"

/// The Google host, built once.
/// `nonisolated(unsafe)`: libFuzzer runs every input on one thread.
nonisolated(unsafe) let googleServer: InMemoryServer = {
    do { return try InMemoryServer(fixture: fixture, host: .google, mountsCollector: false) } catch { fatalError("cannot build the in-memory gateway: \(error)") }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFCMOAuth(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    _ = assertion  // made and checked with the first input
    let mode = data[0] % 4
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    if InMemoryServer.checksAgainstFresh {
        googleServer.checkAgainstFresh(mountsCollector: false) { run(mode: mode, bytes, on: $0) }
    } else {
        run(mode: mode, bytes, on: googleServer)
    }
    googleServer.finish()
    googleServer.reset()
    return 0
}

/// One input's requests on `server` and the checks of their answers.
func run(mode: UInt8, _ bytes: [UInt8], on server: InMemoryServer) {
    switch mode {
    case 0:
        // The bytes as they are (the form parser reads bytes), unless they name the assertion.
        var body = bytes
        if body.contains(UInt8(ascii: "@")) {
            while let marker = firstRange(of: assertionMarker, in: body) { body.replaceSubrange(marker, with: assertion.utf8) }
        }
        if decodesEscapes(body) || hash(body) % 8 == 0 { checkFormRoundTrip(body) }
        checkToken(server, body: body)
    case 1:
        let jwt = signed(signedHeader + Base64URL.encode(bytes))
        checkToken(server, body: Array("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(jwt)".utf8))
    case 2:
        let request = FuzzRequest(method: "POST", target: sendPath,
                                  headers: [("authorization", "Bearer @FCM_TOKEN@"), ("content-type", "application/json")], body: bytes)
        checkSend(server.respond(request, connection: server.makeConnection()), project: "pushlab-dev")
    default:
        let request = FuzzRequest(decoding: bytes[...])
        let response = server.respond(request, connection: server.makeConnection())
        guard response.status == 0 || (200...599).contains(response.status) else { fatalError("status \(response.status) is not an HTTP status") }
        let path = request.target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        // Only the FCM route answers like FCM. Any other path, one ending in /messages:send
        // included, reaches the Google host's fallback (a plain-text 404), which `match` also
        // reports as found, with no parameters: the route is FCM's when it bound {project}.
        if case .found(_, let parameters) = server.router.match(method: request.method, path: path), let project = parameters["project"] {
            checkSend(response, project: project)
        }
    }
}

/// Where `marker` first occurs in `bytes`: Foundation's generic `firstRange(of:)` on `[UInt8]`
/// was 11% of this target's time, and a Swift loop over the bytes (each comparison traced by the
/// coverage instrumentation) 2.6%; `memchr` finds each candidate first byte, `memcmp` compares.
func firstRange(of marker: [UInt8], in bytes: [UInt8]) -> Range<Int>? {
    guard let first = marker.first, bytes.count >= marker.count else { return nil }
    return bytes.withUnsafeBufferPointer { buffer -> Range<Int>? in
        let base = buffer.baseAddress!
        let last = bytes.count - marker.count
        var i = 0
        while i <= last {
            guard let found = memchr(base + i, Int32(first), last - i + 1) else { return nil }
            i = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            if memcmp(base + i, marker, marker.count) == 0 { return i..<(i + marker.count) }
            i += 1
        }
        return nil
    }
}

/// The answers' JSON pointers, parsed once (a literal is parsed at every use: 0.7% of the time).
enum Pointers {
    static let accessToken: JSONPointer = "/access_token"
    static let tokenType: JSONPointer = "/token_type"
    static let expiresIn: JSONPointer = "/expires_in"
    static let error: JSONPointer = "/error"
    static let errorDescription: JSONPointer = "/error_description"
    static let name: JSONPointer = "/name"
    static let errorCode: JSONPointer = "/error/code"
    static let errorStatus: JSONPointer = "/error/status"
}

/// RFC 6749 §5.2 error codes the endpoint may answer.
let oauthErrors: Set<String> = ["invalid_request", "invalid_client", "invalid_grant", "unauthorized_client", "unsupported_grant_type", "invalid_scope"]

func checkToken(_ server: InMemoryServer, body: [UInt8]) {
    let response = server.respond(FuzzRequest(method: "POST", target: "/token", headers: [], body: body), connection: server.makeConnection())
    guard let document = try? JSONDocument.parse(response.body) else { fatalError("/token answered \(response.status) with a non-JSON body") }
    switch response.status {
    case 200:
        guard case .string(let token)? = document.value(at: Pointers.accessToken), !token.isEmpty,
              document.value(at: Pointers.tokenType) == .string("Bearer"), document.value(at: Pointers.expiresIn) != nil
        else { fatalError("/token 200 without access_token, token_type Bearer and expires_in: \(String(decoding: response.body, as: UTF8.self))") }
        // The issued token must authenticate a send (whatever the send's own verdict).
        let send = server.respond(FuzzRequest(method: "POST", target: sendPath, headers: [("authorization", "Bearer " + token)],
                                              body: Array(#"{"message":{"token":"x"}}"#.utf8)), connection: server.makeConnection())
        if send.status == 401 { fatalError("a token /token issued was refused by messages:send: \(String(decoding: send.body, as: UTF8.self))") }
    case 400:
        guard case .string(let code)? = document.value(at: Pointers.error), oauthErrors.contains(code),
              case .string? = document.value(at: Pointers.errorDescription)
        else { fatalError("/token 400 without an RFC 6749 error: \(String(decoding: response.body, as: UTF8.self))") }
    default:
        fatalError("/token answered \(response.status): \(String(decoding: response.body, as: UTF8.self))")
    }
}

func checkSend(_ response: ServerResponse, project: String) {
    guard response.status != 0 else { return }  // a fault plan's reset; none is configured
    guard let document = try? JSONDocument.parse(response.body) else {
        fatalError("messages:send answered \(response.status) with a non-JSON body: \(String(decoding: response.body.prefix(200), as: UTF8.self))")
    }
    if response.status == 200 {
        guard case .string(let name)? = document.value(at: Pointers.name), name.hasPrefix("projects/\(project)/messages/") else {
            fatalError("messages:send 200 without a message name under projects/\(project): \(String(decoding: response.body, as: UTF8.self))")
        }
    } else {
        guard document.value(at: Pointers.errorCode) == .number(JSONNumber(response.status)), case .string? = document.value(at: Pointers.errorStatus) else {
            fatalError("messages:send \(response.status) without error.code = status and error.status: \(String(decoding: response.body, as: UTF8.self))")
        }
    }
}

/// Whether `FormBody.parse` decodes anything in `body` (a `%` or a `+`). The round trip below
/// runs on every such body and on one in eight others (by `hash`, so a finding replays): on a
/// body without either, parsing only splits it and reads the pieces as UTF-8, and the round trip
/// tests the decoder on the escapes of those bytes, which escaped bodies test too; it was 13% of
/// the target's time (two more parses per form-mode input, the second over a body up to three
/// times as long).
func decodesEscapes(_ body: [UInt8]) -> Bool {
    body.contains(UInt8(ascii: "%")) || body.contains(UInt8(ascii: "+"))
}

/// FNV-1a of the length and at most 32 bytes from each end.
func hash(_ bytes: [UInt8]) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(bytes.count)
    for byte in bytes.prefix(32) + bytes.suffix(32) { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    return hash
}

/// `FormBody.parse` then percent-encoding every byte but the unreserved ones and parsing again
/// gives the same fields.
func checkFormRoundTrip(_ body: [UInt8]) {
    let fields = FormBody.parse(body)
    var reencoded: [UInt8] = []
    for (key, value) in fields {
        if !reencoded.isEmpty { reencoded.append(UInt8(ascii: "&")) }
        percentEncode(key, into: &reencoded)
        reencoded.append(UInt8(ascii: "="))
        percentEncode(value, into: &reencoded)
    }
    let again = FormBody.parse(reencoded)
    guard again == fields else { fatalError("form fields changed when re-encoded:\n\(fields)\n\(again)") }
}

/// Each byte's encoding, `unreserved` bytes as they are: a table, because the coverage
/// instrumentation traces every comparison of this harness's own code too (eight per byte).
/// Four bytes per entry: the length, then the encoding (one flat array: an array per byte
/// retained and released at every byte was 3% of the target's time).
let percentEncoded: [UInt8] = (0...255).flatMap { (b: Int) -> [UInt8] in
    let byte = UInt8(b)
    let hex = Array("0123456789ABCDEF".utf8)
    return Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8).contains(byte)
        ? [1, byte, 0, 0] : [3, UInt8(ascii: "%"), hex[b >> 4], hex[b & 0x0F]]
}

/// RFC 3986 unreserved bytes as they are, every other byte as `%XX`.
func percentEncode(_ s: String, into out: inout [UInt8]) {
    percentEncoded.withUnsafeBufferPointer { table in
        for b in s.utf8 {
            let entry = table.baseAddress! + Int(b) * 4
            out.append(contentsOf: UnsafeBufferPointer(start: entry + 1, count: Int(entry[0])))
        }
    }
}
