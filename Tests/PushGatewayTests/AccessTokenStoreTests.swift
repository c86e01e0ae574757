@testable import PushGateway
import XCTest

/// The access tokens `POST /token` issues: Google-shaped (`ya29.` prefix), 24 random bytes in
/// hex, every byte of them random (not only the first draw's).
final class AccessTokenStoreTests: XCTestCase {
    func testTokensAreTwentyFourRandomBytesInHex() {
        let store = AccessTokenStore()
        let grant = IssuedAccessToken(clientEmail: "a@b.iam.gserviceaccount.com", projectID: "p", scopes: ["s"],
                                      expiresAt: Date().addingTimeInterval(3600))
        let prefix = "ya29.pushlab."
        var seen: [Set<Substring>] = Array(repeating: [], count: 24)
        var tokens: Set<String> = []
        for _ in 0..<64 {
            let token = store.issue(grant)
            XCTAssertTrue(token.hasPrefix(prefix), token)
            let hex = token.dropFirst(prefix.count)
            XCTAssertEqual(hex.count, 48, token)
            XCTAssertTrue(hex.allSatisfy { "0123456789abcdef".contains($0) }, token)
            XCTAssertNotNil(store.lookup(token))
            tokens.insert(token)
            // Each byte position takes more than one value over 64 tokens (all equal by chance: 256^-63).
            var i = hex.startIndex
            for position in 0..<24 where hex.count == 48 {
                let next = hex.index(i, offsetBy: 2)
                seen[position].insert(hex[i..<next])
                i = next
            }
        }
        XCTAssertEqual(tokens.count, 64)
        for (position, values) in seen.enumerated() {
            XCTAssertGreaterThan(values.count, 1, "byte \(position) of the token is always \(values.first ?? "")")
        }
    }
}
