import Foundation

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
