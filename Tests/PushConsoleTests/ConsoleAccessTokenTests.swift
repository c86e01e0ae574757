import PushConsole
import XCTest

/// Which access tokens the console takes: 16 characters or more of RFC 6750's token syntax, so
/// the token always works as `Authorization: Bearer TOKEN` (the header is read with PushHTTP's
/// one Bearer parser; the routes are tested in ConsoleAPITests and ConsoleBrowserTests).
final class ConsoleAccessTokenTests: XCTestCase {
    func testTokensMustBeSixteenCharactersOfTheBearerTokenSyntax() {
        for token in ["0123456789abcdef", "s3cret-console-token-7F2A.x_~", "base64+token/with==", "  padded-by-spaces-1234  \n"] {
            XCTAssertNoThrow(try ConsoleAccess(token: token), token)
        }
        for token in ["short", "has a space inside-1234", "has!a#bang-and-hash", "equals=in-the-middle-1234", "comma,separated-123456",
                      "semicolon;separated-12345", "quoted\"token-1234567890", "caf\u{e9}-console-token-1234"] {
            XCTAssertThrowsError(try ConsoleAccess(token: token), token) { error in
                XCTAssertFalse("\(error)".contains(token), "the refusal must not print the token")
            }
        }
        XCTAssertNoThrow(try ConsoleAccess(token: ConsoleAccess.generate().token), "a generated token is always accepted")
    }

    func testTheRefusalSaysWhichCharactersAreAllowed() {
        XCTAssertThrowsError(try ConsoleAccess(token: "has!a#bang-and-hash")) { error in
            XCTAssertTrue("\(error)".contains("letters, digits and - . _ ~ + / only"), "\(error)")
        }
    }
}
