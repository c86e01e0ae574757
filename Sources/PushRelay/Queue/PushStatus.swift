import Foundation

public struct PushStatus: Sendable, Hashable {
    public var pushID: PushID
    public var app: String
    public var acceptedAt: Date
    public var targetCount: Int
    public var sent: Int
    public var failed: Int
    /// Filled only when asked for (`includeTargets`), in index order.
    public var targets: [TargetState]
    public var isFinished: Bool { sent + failed == targetCount }

    public init(pushID: PushID, app: String, acceptedAt: Date, targetCount: Int, sent: Int, failed: Int, targets: [TargetState]) {
        self.pushID = pushID
        self.app = app
        self.acceptedAt = acceptedAt
        self.targetCount = targetCount
        self.sent = sent
        self.failed = failed
        self.targets = targets
    }
}
