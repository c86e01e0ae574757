import Foundation

/// An image attached to the notification, as iOS would show it.
public struct RichPushAttachment: Sendable, Codable, Equatable {
    /// `cio_sdk_` + 10 random lowercase letters (the reference SDK's identifier).
    public var identifier: String
    public var path: String
    public var type: ImageFormat
    public var size: Int
    public var dimensions: ImageDimensions?
}
