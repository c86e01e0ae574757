import Foundation
import PushCore

/// An app's `ActivityAttributes` type as the app profile declares it: the static attributes and
/// the `ContentState` fields, each with a type. iOS decodes `content-state` into `ContentState`
/// with a default `JSONDecoder` (docs/specs/apns.md "Per-device Live Activity pushes"), so the
/// emulator checks a push the same way: a missing non-optional field or a wrong type fails the
/// decode and the update is not applied; extra keys are ignored.
///
/// Field types: `string`, `int`, `double`, `bool`, `date` (a number: the default decoder reads
/// `Date` as seconds since 2001-01-01), `object`, `array`; a trailing `?` makes it optional.
public struct LiveActivitySchema: Codable, Sendable, Equatable {
    public var attributesType: String
    public var attributes: [String: String]
    public var contentState: [String: String]

    public init(attributesType: String, attributes: [String: String] = [:], contentState: [String: String]) {
        self.attributesType = attributesType
        self.attributes = attributes
        self.contentState = contentState
    }

    public static let fieldTypes = ["string", "int", "double", "bool", "date", "object", "array"]

    /// Why `value` would not decode as `fields`, worded like Swift's `DecodingError`; nil when it decodes.
    public static func decodingFailure(_ value: JSONValue?, as fields: [String: String], at path: String) -> String? {
        guard let object = value?.objectValue else {
            return "typeMismatch: expected a keyed container (object) at \(path), found \(value?.describedForMessage ?? "nothing")"
        }
        for name in fields.keys.sorted() {
            let declared = fields[name]!
            let optional = declared.hasSuffix("?")
            let type = optional ? String(declared.dropLast()) : declared
            guard let member = object[name], !member.isNull else {
                if optional { continue }
                return object[name] == nil ? "keyNotFound: \"\(name)\" at \(path)" : "valueNotFound: \(type) at \(path)/\(name) is null"
            }
            if !matches(member, type) {
                return "typeMismatch: expected \(type) at \(path)/\(name), found \(member.describedForMessage)"
            }
        }
        return nil
    }

    static func matches(_ value: JSONValue, _ type: String) -> Bool {
        switch type {
        case "string": return value.stringValue != nil
        case "int": return value.numberValue?.intValue != nil
        case "double", "date": return value.numberValue != nil
        case "bool": return value.boolValue != nil
        case "object": return value.objectValue != nil
        case "array": return value.arrayValue != nil
        default: return false
        }
    }

    /// Declared field types pushlab does not know, as JSON pointers inside the schema.
    public var unknownFieldTypes: [String] {
        var out: [String] = []
        for (section, fields) in [("attributes", attributes), ("contentState", contentState)] {
            for (name, type) in fields where !LiveActivitySchema.fieldTypes.contains(type.hasSuffix("?") ? String(type.dropLast()) : type) {
                out.append("/\(section)/\(name)")
            }
        }
        return out.sorted()
    }
}

/// The app's Live Activity setup in its profile (`"liveActivities"`): the attribute types it
/// declares, whether it asked for frequent updates, and where it passes opened URLs to
/// Customer.io's widget-URL handler (docs/specs/device-side.md §7).
public struct LiveActivityProfile: Codable, Sendable, Equatable {
    /// Where the app calls `CustomerIO.liveActivities.handleWidgetUrl(_:)`.
    public enum WidgetURLHandler: String, Codable, Sendable, CaseIterable {
        /// UIScene cold launch: `scene(_:willConnectTo:options:)` (its `urlContexts`).
        case sceneWillConnect = "scene-will-connect"
        /// UIScene warm open: `scene(_:openURLContexts:)`.
        case sceneOpenURLContexts = "scene-open-url-contexts"
        /// AppDelegate-only apps: `application(_:open:options:)`, cold and warm.
        case appOpenURL = "app-open-url"
        /// Expo Router's `+native-intent.tsx` (sees every opened URL).
        case expoNativeIntent = "expo-native-intent"
        /// A React Native `Linking` URL listener (sees every opened URL).
        case linkingListener = "linking-listener"
    }
    public enum Lifecycle: String, Codable, Sendable, CaseIterable {
        case uiscene, appdelegate
    }

    public var activities: [LiveActivitySchema]
    /// Info.plist `NSSupportsLiveActivitiesFrequentUpdates` (raises the priority-10 budget).
    public var frequentUpdates: Bool
    public var lifecycle: Lifecycle
    public var widgetURLHandlers: [WidgetURLHandler]

    public init(activities: [LiveActivitySchema] = [], frequentUpdates: Bool = false, lifecycle: Lifecycle = .uiscene,
                widgetURLHandlers: [WidgetURLHandler] = []) {
        self.activities = activities
        self.frequentUpdates = frequentUpdates
        self.lifecycle = lifecycle
        self.widgetURLHandlers = widgetURLHandlers
    }

    enum CodingKeys: String, CodingKey { case activities, frequentUpdates, lifecycle, widgetURLHandlers }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(activities: try c.decodeIfPresent([LiveActivitySchema].self, forKey: .activities) ?? [],
                  frequentUpdates: try c.decodeIfPresent(Bool.self, forKey: .frequentUpdates) ?? false,
                  lifecycle: try c.decodeIfPresent(Lifecycle.self, forKey: .lifecycle) ?? .uiscene,
                  widgetURLHandlers: try c.decodeIfPresent([WidgetURLHandler].self, forKey: .widgetURLHandlers) ?? [])
    }

    public func schema(for attributesType: String) -> LiveActivitySchema? {
        activities.first { $0.attributesType == attributesType }
    }
}
