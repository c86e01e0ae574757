import Foundation

/// One tap to replay.
public struct Tap: Sendable, Hashable, Codable {
    public var action: TapAction
    public var state: AppLaunchState
    public init(action: TapAction = .default, state: AppLaunchState = .warm) {
        self.action = action
        self.state = state
    }
}
