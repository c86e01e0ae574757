/// One target handed to a worker.
public struct ClaimedTarget: Sendable {
    public var pushID: PushID
    /// The target's position in its push (0-based); with `pushID` it names the target.
    public var index: Int
    public var app: String
    public var target: PushTarget
    /// The push's content, as submitted.
    public var content: [UInt8]
    /// Attempts already made before this claim.
    public var attempts: Int
    /// The implementation's handle for this claim (SQLite: the row; Redis: the stream entry).
    public var receipt: String

    public init(pushID: PushID, index: Int, app: String, target: PushTarget, content: [UInt8], attempts: Int, receipt: String) {
        self.pushID = pushID
        self.index = index
        self.app = app
        self.target = target
        self.content = content
        self.attempts = attempts
        self.receipt = receipt
    }
}
