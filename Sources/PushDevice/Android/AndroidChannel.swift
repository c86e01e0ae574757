import Foundation
import PushCore

/// A notification channel the app has created: id and importance (0 NONE … 4 HIGH).
public struct AndroidChannel: Codable, Sendable, Equatable {
    public var id: String
    public var name: String?
    public var importance: Int
    public init(id: String, name: String? = nil, importance: Int = AndroidChannel.importanceDefault) {
        self.id = id
        self.name = name
        self.importance = importance
    }
    /// `NotificationManager.IMPORTANCE_NONE` (blocked) and `IMPORTANCE_DEFAULT`.
    public static let importanceNone = 0
    public static let importanceDefault = 3
}
