import PushHTTP
import XCTest

/// The one `Bearer` parser (RFC 6750 §2.1, RFC 9110 §11.4): what each `Authorization` value
/// yields. The routes that use it (APNs, FCM, relay API, console, Retainza ingest) and the
/// OAuth caches are tested with it in their own suites.
final class BearerAuthorizationTests: XCTestCase {
    func testTheTable() {
        let jwt = "eyJhbGciOiJFUzI1NiIsImtpZCI6IktFWSJ9.eyJpc3MiOiJURUFNIiwiaWF0IjoxfQ.c2ln-_"
        let table: [(value: String, token: String?, why: String)] = [
            ("Bearer abc", "abc", "the plain form"),
            ("bearer abc", "abc", "scheme in lower case (RFC 9110 §11.1: case-insensitive)"),
            ("BEARER abc", "abc", "scheme in upper case"),
            ("BeArEr abc", "abc", "scheme in mixed case"),
            ("Bearer AbC", "AbC", "the token keeps its case"),
            ("Bearer   abc", "abc", "1*SP: several spaces"),
            ("  Bearer abc \t", "abc", "spaces and tabs around the field value are not part of it (RFC 9110 §5.5)"),
            ("bearer " + jwt, jwt, "a JWT: base64url parts and dots"),
            ("Bearer ya29.a0Af-_~+/xyz==", "ya29.a0Af-_~+/xyz==", "every b64token character, = padding at the end"),
            ("Bearer plk_0aZ", "plk_0aZ", "a relay API key"),
            ("Bearer", nil, "no token"),
            ("Bearer ", nil, "empty token"),
            ("Bearer    ", nil, "only spaces after the scheme"),
            ("Bearerabc", nil, "no space after the scheme"),
            ("Bearer\tabc", nil, "a tab is not the 1*SP the grammar asks for"),
            ("Bearer a b", nil, "a space inside the token"),
            ("Bearer abc def=", nil, "two tokens"),
            ("Bearer ab=c", nil, "= only at the end"),
            ("Bearer =", nil, "padding without a token"),
            ("Bearer abc,", nil, "a comma is no b64token character"),
            ("Bearer \"abc\"", nil, "a quoted string is not a b64token"),
            ("Bearer ab\u{e9}", nil, "non-ASCII"),
            ("Basic dXNlcjpwYXNz", nil, "another scheme: Basic"),
            ("Token abc", nil, "another scheme"),
            ("Bearers abc", nil, "a longer scheme name"),
            ("Bear abc", nil, "a shorter scheme name"),
            ("", nil, "empty value"),
            ("abc", nil, "a bare token is not a Bearer credential"),
        ]
        for row in table {
            XCTAssertEqual(BearerAuthorization.token(in: row.value).map(String.init), row.token, "\(row.value.debugDescription): \(row.why)")
        }
    }
}
