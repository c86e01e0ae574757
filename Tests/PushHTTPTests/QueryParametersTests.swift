import PushHTTP
import XCTest

/// `QueryParameters` decodes a query string and reads whole numbers in a range; anything else
/// is an error naming the parameter and the fix (the gateway's `/admin`, the console's API).
final class QueryParametersTests: XCTestCase {
    func testDecodesPlusAndPercentEscapesAndKeepsTheLastOfARepeatedName() {
        let q = QueryParameters("q=a+b%2Fc&flag&limit=1&limit=2")
        XCTAssertEqual(q["q"], "a b/c")
        XCTAssertEqual(q["flag"], "")
        XCTAssertEqual(q["limit"], "2")
        XCTAssertNil(q["missing"])
        XCTAssertNil(QueryParameters(nil)["limit"])
    }

    func testAWholeNumberInRangeIsReadAndAnAbsentOrEmptyOneIsNil() throws {
        XCTAssertEqual(try QueryParameters("limit=10000").int("limit", range: 1...10_000), 10_000)
        XCTAssertEqual(try QueryParameters("limit=1").int("limit", range: 1...10_000), 1)
        XCTAssertNil(try QueryParameters("limit=").int("limit", range: 1...10_000))
        XCTAssertNil(try QueryParameters("other=5").int("limit", range: 1...10_000))
    }

    func testAnythingElseIsAnErrorNamingTheFieldAndTheFix() {
        for raw in ["-21", "0", "abc", "10001", "1.5", "99999999999999999999999"] {
            XCTAssertThrowsError(try QueryParameters("limit=" + raw).int("limit", range: 1...10_000), raw) { error in
                XCTAssertEqual(error as? QueryParameterError,
                               QueryParameterError(field: "limit", error: "limit=\(raw) is not a whole number in 1…10000",
                                                   fix: "pass limit as a whole number in that range, or leave it out"))
            }
        }
    }
}
