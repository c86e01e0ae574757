import Foundation

/// A tap on a notification of the virtual phone.
public struct AndroidTap: Sendable, Codable, Equatable {
    /// Who drew the tapped notification: the SDK (tap → `NotificationClickReceiverActivity`)
    /// or the FCM SDK's tray (tap → launcher / click_action activity with the data as extras).
    public var drawnBy: AndroidDrawer
    public var link: String?
    public var state: AndroidAppState
    /// The app's task before the tap, bottom to top; nil = just the launcher activity (or
    /// nothing when killed).
    public var stack: [String]?
    /// The tray's `click_action` activity.
    public var clickAction: String?
    /// The target activity is recreated after the tap (rotation, process restore).
    public var recreatedAfterTap: Bool

    public init(drawnBy: AndroidDrawer = .customerIOSDK, link: String? = nil, state: AndroidAppState = .background, stack: [String]? = nil,
                clickAction: String? = nil, recreatedAfterTap: Bool = false) {
        self.drawnBy = drawnBy
        self.link = link
        self.state = state
        self.stack = stack
        self.clickAction = clickAction
        self.recreatedAfterTap = recreatedAfterTap
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case drawnBy, link, state, stack, clickAction, recreatedAfterTap }

    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(decoder, known: CodingKeys.allCases.map(\.rawValue))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        drawnBy = try c.decodeIfPresent(AndroidDrawer.self, forKey: .drawnBy) ?? .customerIOSDK
        link = try c.decodeIfPresent(String.self, forKey: .link)
        state = try c.decodeIfPresent(AndroidAppState.self, forKey: .state) ?? .background
        stack = try c.decodeIfPresent([String].self, forKey: .stack)
        clickAction = try c.decodeIfPresent(String.self, forKey: .clickAction)
        recreatedAfterTap = try c.decodeIfPresent(Bool.self, forKey: .recreatedAfterTap) ?? false
    }
}
