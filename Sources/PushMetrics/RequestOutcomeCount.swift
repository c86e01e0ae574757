import Foundation
import PushCore

/// How many requests of one route ended with one status.
public struct RequestOutcomeCount: Sendable, Equatable, Codable {
    public var route: CIOMetricRoute
    public var status: Int
    public var error: String?
    public var count: Int

    public init(route: CIOMetricRoute, status: Int, error: String?, count: Int) {
        self.route = route
        self.status = status
        self.error = error
        self.count = count
    }
}
