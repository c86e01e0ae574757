import Foundation
import PushAuth
import PushCore
import PushHTTP
import Synchronization

/// `POST /token` — Google's OAuth 2.0 jwt-bearer grant (docs/specs/fcm.md "Access token"): the RS256
/// assertion is verified against the trusted service accounts; `iss`, `aud`, `scope`, `iat`
/// and `exp` are checked in that order; errors use OAuth's `{"error", "error_description"}`.
struct OAuthRoute: Sendable {
    let keys: GatewayKeys
    let tokens: AccessTokenStore
    let time: TimeSource
    /// Google issues one-hour tokens and reports 3599 s.
    static let lifetime: TimeInterval = 3599
    static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    func handle(_ request: ServerRequest) -> HandlerReply {
        let now = time.now
        let form = FormBody.parse(request.body)
        guard form["grant_type"] == Self.grantType else {
            return .now(oauthError(400, "unsupported_grant_type", "Invalid grant_type: \(form["grant_type"] ?? "")"))
        }
        guard let assertion = form["assertion"], !assertion.isEmpty else {
            return .now(oauthError(400, "invalid_request", "Missing required parameter: assertion"))
        }
        let jwt: JWT
        do { jwt = try JWT.parse(assertion) } catch {
            return .now(oauthError(400, "invalid_grant", "Invalid JWT: \(error)"))
        }
        guard let iss = jwt.claims.iss, let account = keys.serviceAccount(email: iss) else {
            return .now(oauthError(400, "invalid_grant", "Invalid grant: account not found"))
        }
        if let kid = account.keyID, jwt.header.kid != kid {
            return .now(oauthError(400, "invalid_grant", "Invalid JWT Signature."))
        }
        do { try jwt.verify(with: account.publicKey, algorithm: .rs256) } catch {
            return .now(oauthError(400, "invalid_grant", "Invalid JWT Signature."))
        }
        guard let aud = jwt.claims.audience, URL(string: aud)?.path == FCMPath.oauthToken else {
            return .now(oauthError(400, "invalid_grant", "Invalid JWT: Failed audience check."))
        }
        guard let scope = jwt.claims.scope, !scope.isEmpty else {
            return .now(oauthError(400, "invalid_scope", "Empty or missing scope not allowed."))
        }
        guard let iat = jwt.claims.iat, let exp = jwt.claims.exp,
              exp > iat, exp - iat <= 3600,
              Double(exp) > now.timeIntervalSince1970, Double(iat) <= now.timeIntervalSince1970 + 60
        else {
            return .now(oauthError(400, "invalid_grant",
                              "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."))
        }
        let token = tokens.issue(IssuedAccessToken(clientEmail: iss, projectID: account.projectID,
                                                   scopes: Set(scope.split(separator: " ").map(String.init)),
                                                   expiresAt: now.addingTimeInterval(Self.lifetime)))
        return .now(.json(200, #"{"access_token":"\#(token)","expires_in":\#(Int(Self.lifetime)),"token_type":"Bearer"}"#))
    }

    private func oauthError(_ status: Int, _ code: String, _ description: String) -> ServerResponse {
        .json(status, #"{"error":"\#(code)","error_description":"\#(jsonEscaped(description))"}"#)
    }
}

/// `application/x-www-form-urlencoded` bodies, parsed as the URL Standard's form parser does
/// (https://url.spec.whatwg.org/#urlencoded-parsing): the bytes are split on `&` (empty pieces
/// skipped), each piece at its first `=`; in name and value `+` is a space and `%XX` a byte (a
/// `%` without two hex digits stays as it is); the bytes are then read as UTF-8, invalid
/// sequences becoming U+FFFD. A name given twice keeps its last value.
enum FormBody {
    /// The pieces and separators are found with `memchr` and escapes decoded by table, so a
    /// body's bytes are not compared one by one in Swift (the `/token` fuzz target parses every
    /// body up to three times; FormBodyTests compares this with a reading of the standard).
    static func parse(_ body: [UInt8]) -> [String: String] {
        var out: [String: String] = [:]
        body.withUnsafeBufferPointer { buffer in
            var start = 0
            while start < buffer.count {
                let end = buffer.firstIndex(of: UInt8(ascii: "&"), in: start..<buffer.count) ?? buffer.count
                if end > start {  // empty pieces are skipped
                    if let equals = buffer.firstIndex(of: UInt8(ascii: "="), in: start..<end) {
                        out[decode(buffer, start..<equals)] = decode(buffer, (equals + 1)..<end)
                    } else {
                        out[decode(buffer, start..<end)] = ""
                    }
                }
                start = end + 1
            }
        }
        return out
    }

    private static func decode(_ buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        let field = UnsafeBufferPointer(rebasing: buffer[range])
        guard buffer.firstIndex(of: UInt8(ascii: "+"), in: range) != nil || buffer.firstIndex(of: UInt8(ascii: "%"), in: range) != nil else {
            return String(decoding: field, as: UTF8.self)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(field.count)
        hexValues.withUnsafeBufferPointer { hex in
            var i = 0
            while i < field.count {
                let byte = field[i]
                if byte == UInt8(ascii: "+") {
                    bytes.append(UInt8(ascii: " "))
                } else if byte == UInt8(ascii: "%"), i + 2 < field.count, case let high = hex[Int(field[i + 1])], high != 0xFF,
                          case let low = hex[Int(field[i + 2])], low != 0xFF {
                    bytes.append(high << 4 | low)
                    i += 2
                } else {
                    bytes.append(byte)
                }
                i += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Each byte's value as a hex digit (either case), 0xFF for a byte that is none.
    private static let hexValues: [UInt8] = (0...255).map { (b: Int) -> UInt8 in
        switch UInt8(b) {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt8(b) - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt8(b) - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt8(b) - UInt8(ascii: "a") + 10
        default: return 0xFF
        }
    }
}

/// Escapes a string for embedding in a JSON string literal (PushCore's serializer does the work).
func jsonEscaped(_ s: String) -> String {
    String(decoding: JSONValue.string(s).minifiedBytes().dropFirst().dropLast(), as: UTF8.self)
}
