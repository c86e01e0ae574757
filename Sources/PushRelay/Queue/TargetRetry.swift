import Foundation

public struct TargetRetry: Sendable {
    public var claim: ClaimedTarget
    public var attempts: Int
    public var lastError: String?
    public var notBefore: Date
    public init(_ claim: ClaimedTarget, attempts: Int, lastError: String?, notBefore: Date) {
        self.claim = claim
        self.attempts = attempts
        self.lastError = lastError
        self.notBefore = notBefore
    }
}
