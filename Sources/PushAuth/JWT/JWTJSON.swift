import CPushLab
import Foundation
import PushCore

/// JSON for JWT headers and claims. Encoding writes keys in a fixed order (so a token's bytes
/// are reproducible and easy to compare with other clients) and escapes strings with PushCore's
/// serializer; decoding is typed and strict about the claims it knows and ignores the rest
/// (RFC 7519 §4: unknown claims are allowed).
enum JWTJSON {
    static func encode(_ header: JWTHeader) -> String {
        var fields: [(String, String)] = [("alg", JSONValue.quoted(header.alg))]
        if let typ = header.typ { fields.append(("typ", JSONValue.quoted(typ))) }
        if let kid = header.kid { fields.append(("kid", JSONValue.quoted(kid))) }
        return object(fields)
    }

    static func encode(_ claims: JWTClaims) -> String {
        var fields: [(String, String)] = []
        if let iss = claims.iss { fields.append(("iss", JSONValue.quoted(iss))) }
        if let sub = claims.sub { fields.append(("sub", JSONValue.quoted(sub))) }
        if let scope = claims.scope { fields.append(("scope", JSONValue.quoted(scope))) }
        if claims.aud.count == 1 {
            fields.append(("aud", JSONValue.quoted(claims.aud[0])))
        } else if !claims.aud.isEmpty {
            fields.append(("aud", "[" + claims.aud.map(JSONValue.quoted).joined(separator: ",") + "]"))
        }
        if let iat = claims.iat { fields.append(("iat", String(iat))) }
        if let exp = claims.exp { fields.append(("exp", String(exp))) }
        return object(fields)
    }

    private static func object(_ fields: [(String, String)]) -> String {
        "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    private struct HeaderShape: Decodable {
        var alg: String?
        var kid: String?
        var typ: String?
    }

    private struct ClaimsShape: Decodable {
        var iss: String?
        var sub: String?
        var aud: [String]
        var scope: String?
        var iat: Int64?
        var exp: Int64?

        enum Keys: String, CodingKey { case iss, sub, aud, scope, iat, exp }

        init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: Keys.self)
            iss = try c.decodeIfPresent(String.self, forKey: .iss)
            sub = try c.decodeIfPresent(String.self, forKey: .sub)
            scope = try c.decodeIfPresent(String.self, forKey: .scope)
            if let one = try? c.decodeIfPresent(String.self, forKey: .aud) {
                aud = [one]
            } else {
                aud = try c.decodeIfPresent([String].self, forKey: .aud) ?? []
            }
            iat = try Self.seconds(c, .iat)
            exp = try Self.seconds(c, .exp)
        }

        // NumericDate (RFC 7519 §2) may carry a fraction; keep whole seconds.
        private static func seconds(_ c: KeyedDecodingContainer<Keys>, _ key: Keys) throws -> Int64? {
            if let whole = try? c.decodeIfPresent(Int64.self, forKey: key) { return whole }
            guard let value = try c.decodeIfPresent(Double.self, forKey: key) else { return nil }
            guard value.isFinite, abs(value) < 1e15 else {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "out of range")
            }
            return Int64(value.rounded(.down))
        }
    }

    static func decodeHeader(_ bytes: [UInt8]) throws(JWTError) -> JWTHeader {
        let shape: HeaderShape
        do { shape = try JSONDecoder().decode(HeaderShape.self, from: Data(bytes)) } catch { throw .badJSON(.header) }
        guard let alg = shape.alg else { throw .malformed("the header has no 'alg'") }
        return JWTHeader(alg: alg, kid: shape.kid, typ: shape.typ)
    }

    static func decodeClaims(_ bytes: [UInt8]) throws(JWTError) -> JWTClaims {
        let shape: ClaimsShape
        do { shape = try JSONDecoder().decode(ClaimsShape.self, from: Data(bytes)) } catch { throw .badJSON(.claims) }
        return JWTClaims(iss: shape.iss, sub: shape.sub, aud: shape.aud, scope: shape.scope, iat: shape.iat, exp: shape.exp)
    }
}
