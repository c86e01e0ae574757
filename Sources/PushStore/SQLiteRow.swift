import CPushLab
import Foundation

/// One result row, copied out of the statement.
public struct SQLiteRow: Sendable {
    public let values: [SQLiteValue]

    init(statement: OpaquePointer) {
        let n = sqlite3_column_count(statement)
        values = (0..<n).map { i in
            switch sqlite3_column_type(statement, i) {
            case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, i))
            case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, i))
            case SQLITE_TEXT: return .text(String(cString: sqlite3_column_text(statement, i)))
            case SQLITE_BLOB:
                let count = Int(sqlite3_column_bytes(statement, i))
                guard count > 0, let p = sqlite3_column_blob(statement, i) else { return .blob([]) }
                return .blob(Array(UnsafeRawBufferPointer(start: p, count: count)))
            default: return .null
            }
        }
    }

    public func string(_ i: Int) -> String? { if case .text(let s) = values[i] { return s }; return nil }
    public func int(_ i: Int) -> Int? {
        switch values[i] {
        case .integer(let v): return Int(v)
        case .real(let v): return Int(v)
        default: return nil
        }
    }
    public func double(_ i: Int) -> Double? {
        switch values[i] {
        case .integer(let v): return Double(v)
        case .real(let v): return v
        default: return nil
        }
    }
    public func blob(_ i: Int) -> [UInt8]? { if case .blob(let b) = values[i] { return b }; return nil }
}
