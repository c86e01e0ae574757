import Foundation
import TestSupport
@testable import PushCore

/// The payloads/ corpus: good samples and the one-file-per-rule invalid samples with their
/// expected findings (payloads/invalid/expected.json).
enum PayloadSamples {
    struct InvalidCase {
        var file: String
        var rule: String
        var pointer: JSONPointer?
        var header: String?
        var line: Int?
        var format: PayloadFormat?
        var context: APNsRequest
    }

    static let goodDirectories = ["payloads/apns", "payloads/fcm", "payloads/simulator"]

    static func goodFiles() -> [String] {
        goodDirectories.flatMap { dir -> [String] in
            let files = (try? FileManager.default.contentsOfDirectory(atPath: Fixtures.path(dir))) ?? []
            return files.filter { $0.hasSuffix(".json") || $0.hasSuffix(".apns") }.sorted().map { "\(dir)/\($0)" }
        }
    }

    static func bytes(_ relative: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.path(relative))))
    }

    static func format(forPath path: String) -> PayloadFormat? { path.hasSuffix(".apns") ? .simulator : nil }

    static func invalidCases() throws -> [InvalidCase] {
        let doc = try JSONParser().parse(try bytes("payloads/invalid/expected.json"))
        return try XCTUnwrapOrThrow(doc.root["cases"]?.arrayValue).map { e in
            let headers = e["headers"]?.objectValue?.members.compactMap { m in m.value.stringValue.map { (name: m.key, value: $0) } } ?? []
            return InvalidCase(
                file: e["file"]!.stringValue!, rule: e["rule"]!.stringValue!,
                pointer: e["pointer"]?.stringValue.flatMap(JSONPointer.init(parsing:)),
                header: e["header"]?.stringValue, line: e["line"]?.numberValue?.intValue,
                format: e["format"]?.stringValue.flatMap(PayloadFormat.init(rawValue:)),
                context: APNsRequest(headers: headers, deviceToken: e["token"]?.stringValue ?? ""))
        }
    }

    struct MissingValue: Error {}
    static func XCTUnwrapOrThrow<T>(_ v: T?) throws -> T {
        guard let v else { throw MissingValue() }
        return v
    }
}
