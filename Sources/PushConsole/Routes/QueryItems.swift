import Foundation
import PushHTTP

/// The decoded `name=value` pairs of a query string (PushHTTP's `QueryParameters`), with the
/// console's error type.
struct QueryItems {
    private let parameters: QueryParameters

    init(_ query: String?) { parameters = QueryParameters(query) }

    subscript(name: String) -> String? { parameters[name] }

    func int(_ name: String, range: ClosedRange<Int>) throws(ConsoleInputError) -> Int? {
        do { return try parameters.int(name, range: range) } catch { throw ConsoleInputError(error) }
    }

    func int64(_ name: String, range: ClosedRange<Int64>) throws(ConsoleInputError) -> Int64? {
        do { return try parameters.int64(name, range: range) } catch { throw ConsoleInputError(error) }
    }
}

extension ConsoleInputError {
    init(_ error: QueryParameterError) { self.init(field: error.field, error: error.error, fix: error.fix) }
}
