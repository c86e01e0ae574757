import Foundation

/// Who the app is on this device: the SDK's anonymous id and the identified user, if any.
public struct PipelineIdentity: Sendable, Hashable, Codable {
    public var anonymousId: String
    public var userId: String?
    public init(anonymousId: String, userId: String? = nil) {
        self.anonymousId = anonymousId
        self.userId = userId
    }
}
