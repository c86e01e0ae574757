import Foundation

/// Why an app profile could not be used, with what to do about it.
public enum AppProfileError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(path: String)
    /// The path given for a profile is a directory.
    case directory(path: String)
    /// The tap case table itself (`--cases`) cannot be read.
    case unreadableCaseTable(path: String)
    case malformedJSON(source: String, detail: String)
    case missingField(source: String, pointer: String, why: String)
    case invalidValue(source: String, pointer: String, detail: String)

    public var reason: String {
        switch self {
        case .unreadable(let path): return "\(path): cannot read the app profile"
        case .directory(let path): return "\(path): is a directory, expected the app profile (a JSON file)"
        case .unreadableCaseTable(let path): return "\(path): cannot read the tap case table"
        case .malformedJSON(let source, let detail): return "\(source): not valid JSON (\(detail))"
        case .missingField(let source, let pointer, let why): return "\(source): \(pointer) is missing (\(why))"
        case .invalidValue(let source, let pointer, let detail): return "\(source): \(pointer): \(detail)"
        }
    }

    public var fix: String {
        switch self {
        case .unreadable: return "check the path given to --app (samples: payloads/apps/demo.json)"
        case .directory: return "pass the profile's file, not its directory (samples: payloads/apps/demo.json)"
        case .unreadableCaseTable: return "check the path given to --cases (sample: payloads/taps/android-cases.json)"
        case .malformedJSON: return "fix the JSON syntax; see payloads/apps/demo.json for the shape"
        case .missingField(_, let pointer, _): return "add \"\(pointer.dropFirst())\" to the profile (see docs/device.md)"
        case .invalidValue: return "see docs/device.md for the allowed values"
        }
    }

    public var description: String { "\(reason)\n  fix: \(fix)" }

    /// The bytes of the profile at `path`, or why not (missing or unreadable, or a directory).
    static func contents(of path: String) throws(AppProfileError) -> Data {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue { throw .directory(path: path) }
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path: path) }
        return data
    }

    static func from(_ error: DecodingError, source: String) -> AppProfileError {
        func pointer(_ path: [CodingKey]) -> String {
            "/" + path.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: "/")
        }
        switch error {
        case .keyNotFound(let key, let ctx):
            return .missingField(source: source, pointer: pointer(ctx.codingPath + [key]), why: "required")
        case .typeMismatch(let type, let ctx):
            return .invalidValue(source: source, pointer: pointer(ctx.codingPath), detail: "expected \(AppProfileError.name(type))")
        case .valueNotFound(let type, let ctx):
            return .invalidValue(source: source, pointer: pointer(ctx.codingPath), detail: "expected \(AppProfileError.name(type)), got null")
        case .dataCorrupted(let ctx):
            if ctx.codingPath.isEmpty {
                return .malformedJSON(source: source, detail: (ctx.underlyingError.map { "\($0)" }) ?? ctx.debugDescription)
            }
            let allowed: [String: [String]] = [
                "sdkMode": SDKMode.allCases.map(\.rawValue),
                "region": MetricsRegion.allCases.map(\.rawValue),
                "appGroupStore": AppGroupStoreKind.allCases.map(\.rawValue),
                "framework": DeepLinkProfile.FrameworkBridge.Framework.allCases.map(\.rawValue),
                "coldStartTaps": DeepLinkProfile.ColdStartTapDelivery.allCases.map(\.rawValue),
                "lifecycle": LiveActivityProfile.Lifecycle.allCases.map(\.rawValue),
            ]
            if ctx.codingPath.contains(where: { $0.stringValue == "widgetURLHandlers" }) {
                return .invalidValue(source: source, pointer: pointer(ctx.codingPath),
                                     detail: "must be one of: \(LiveActivityProfile.WidgetURLHandler.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            if let key = ctx.codingPath.last?.stringValue, let values = allowed[key] {
                return .invalidValue(source: source, pointer: pointer(ctx.codingPath),
                                     detail: "must be one of: \(values.joined(separator: ", "))")
            }
            return .invalidValue(source: source, pointer: pointer(ctx.codingPath), detail: ctx.debugDescription)
        @unknown default:
            return .malformedJSON(source: source, detail: "\(error)")
        }
    }

    private static func name(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Bool.Type: return "true or false"
        case is Int.Type: return "a whole number"
        case is Double.Type: return "a number"
        // Decoding a keyed container asks for a dictionary: say "an object", not a Swift type.
        case is [String: Any].Type: return "a JSON object { … }"
        case is [Any].Type: return "a JSON array [ … ]"
        default: return "\(type)"
        }
    }
}
