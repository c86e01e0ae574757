import Foundation

/// One line of a timeline.
public struct AndroidTimelineEntry: Sendable, Codable, Equatable {
    public var atMs: Int64
    public var event: String
    public init(atMs: Int64, event: String) {
        self.atMs = atMs
        self.event = event
    }
}
