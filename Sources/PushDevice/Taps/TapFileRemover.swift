import Foundation

/// File removal for the post-tap cleanup; tests can observe or fail it.
public protocol TapFileRemover: Sendable {
    func removeItem(atPath path: String) throws
}

/// The real file system.
public struct LocalTapFileRemover: TapFileRemover {
    public init() {}
    public func removeItem(atPath path: String) throws { try FileManager.default.removeItem(atPath: path) }
}
